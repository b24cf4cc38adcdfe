import { notFound, type Services } from "@modpack/contract";
import type { RevocationChannel } from "../auth/revocations.js";
import type { SessionStore } from "../auth/sessions.js";
import type { Db } from "../db/database.js";
import { toUser } from "./users.js";

export function authService(db: Db, store: SessionStore, revocations: RevocationChannel): Services["auth"] {
  return {
    async session(caller) {
      const user = await db.selectFrom("users").selectAll().where("id", "=", caller.userId).executeTakeFirst();
      if (!user) throw notFound("User not found");
      return {
        session: {
          id: caller.sessionId ?? caller.tokenId ?? "",
          userId: caller.userId,
          expiresAt: caller.expiresAt.toISOString(),
        },
        user: toUser(user),
      };
    },

    async createToken(caller, input) {
      const created = await store.createApiToken(caller.userId, input.name, input.expiresInDays);
      return {
        id: created.id,
        name: input.name,
        token: created.token,
        createdAt: created.createdAt.toISOString(),
        expiresAt: created.expiresAt.toISOString(),
        lastUsedAt: null,
      };
    },

    async listTokens(caller) {
      const rows = await db
        .selectFrom("apiTokens")
        .select(["id", "name", "createdAt", "expiresAt", "lastUsedAt"])
        .where("userId", "=", caller.userId)
        .where("expiresAt", ">", new Date())
        .orderBy("createdAt", "desc")
        .execute();
      return {
        tokens: rows.map((row) => ({
          id: row.id,
          name: row.name,
          createdAt: row.createdAt.toISOString(),
          expiresAt: (row.expiresAt ?? row.createdAt).toISOString(),
          lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
        })),
      };
    },

    async revokeToken(caller, id) {
      const deleted = await db
        .deleteFrom("apiTokens")
        .where("id", "=", id)
        .where("userId", "=", caller.userId)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) throw notFound("Token not found");
      await revocations.publish(`token:${id}`);
    },
  };
}
