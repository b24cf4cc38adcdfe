import { conflict, notFound, type Services } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { offsetOf, pagination } from "./paging.js";
import type { RevocationPublisher, TokenIssuer } from "./ports.js";
import { toUser } from "./users.js";

export function authService(
  db: Db,
  store: TokenIssuer,
  revocations: RevocationPublisher,
  limits: { tokensPerUser: number },
): Services["auth"] {
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
      const created = await store.createApiToken(caller.userId, input.name, input.expiresInDays, limits.tokensPerUser);
      if (!created) {
        throw conflict(
          `You already hold ${limits.tokensPerUser} API tokens, the most allowed; revoke one before creating another`,
        );
      }
      return {
        id: created.id,
        name: input.name,
        token: created.token,
        createdAt: created.createdAt.toISOString(),
        expiresAt: created.expiresAt.toISOString(),
        lastUsedAt: null,
      };
    },

    async listTokens(caller, input) {
      const rows = await db
        .selectFrom("apiTokens")
        .select(["id", "name", "createdAt", "expiresAt", "lastUsedAt"])
        .select(sql<number>`count(*) over ()`.as("fullCount"))
        .where("userId", "=", caller.userId)
        .where("expiresAt", ">", new Date())
        .orderBy("createdAt", "desc")
        .orderBy("id", "desc")
        .limit(input.limit)
        .offset(offsetOf(input.page, input.limit))
        .execute();
      let total = rows[0] ? Number(rows[0].fullCount) : 0;
      if (rows.length === 0 && input.page > 1) {
        const counted = await db
          .selectFrom("apiTokens")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("userId", "=", caller.userId)
          .where("expiresAt", ">", new Date())
          .executeTakeFirstOrThrow();
        total = Number(counted.count);
      }
      return {
        data: rows.map((row) => ({
          id: row.id,
          name: row.name,
          createdAt: row.createdAt.toISOString(),
          expiresAt: (row.expiresAt ?? row.createdAt).toISOString(),
          lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
        })),
        pagination: pagination(input.page, input.limit, total),
      };
    },

    async revokeToken(caller, { id }) {
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
