import { conflict, notFound, type Services } from "@modpack/contract";
import type { Db } from "../db/database.js";
import { listPage } from "./paging.js";
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

    listTokens(caller, input) {
      return listPage(db, input, {
        list: "tokens",
        filters: {},
        matching: db
          .selectFrom("apiTokens")
          .where("apiTokens.userId", "=", caller.userId)
          .where("apiTokens.expiresAt", ">", new Date()),
        sort: { column: "apiTokens.createdAt", type: "timestamptz", order: "desc", id: "apiTokens.id" },
        // At most a few dozen a user: counted in the page's own statement.
        count: "window",
        cursor: false,
        select: (rows) => rows.select(["id", "name", "createdAt", "expiresAt", "lastUsedAt"]),
        toItem: (row) => ({
          id: row.id,
          name: row.name,
          createdAt: row.createdAt.toISOString(),
          expiresAt: (row.expiresAt ?? row.createdAt).toISOString(),
          lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
        }),
      });
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
