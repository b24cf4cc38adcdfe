import { type ApiToken, conflict, notFound, type Services, unprocessable } from "@modpack/contract";
import type { Selectable } from "kysely";
import type { Db } from "../db/database.js";
import { readableBy } from "../db/modpacks.js";
import { listPage } from "../db/paging.js";
import type { ApiTokensTable } from "../db/schema.js";
import type { RevocationPublisher, TokenIssuer } from "./ports.js";

const DAY_MS = 24 * 60 * 60 * 1000;

const tokenColumns = ["id", "name", "createdAt", "expiresAt", "lastUsedAt", "scopes", "modpackIds"] as const;

/** A token row, read with `tokenColumns`, as the contract answers it (field by field: a page's rows carry more). */
function toApiToken(row: Pick<Selectable<ApiTokensTable>, (typeof tokenColumns)[number]>): ApiToken {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    expiresAt: (row.expiresAt ?? row.createdAt).toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    scopes: row.scopes,
    modpackIds: row.modpackIds,
  };
}

export interface ApiTokensDependencies {
  db: Db;
  issue: TokenIssuer;
  revocations: RevocationPublisher;
  /** How many unexpired tokens one user may hold. */
  maxPerUser: number;
  /** The clock tokens expire by, in epoch milliseconds. */
  now?: () => number;
}

/**
 * Personal API tokens: created (only their hash stored), listed and revoked here; the sign-in layer
 * checks them on each request.
 */
export function apiTokensService(deps: ApiTokensDependencies): Services["apiTokens"] {
  const { db, issue, revocations, maxPerUser, now = Date.now } = deps;

  return {
    async create(caller, input) {
      const modpackIds = input.modpackIds ?? null;
      if (modpackIds) {
        // A token limited to modpacks reaches only what its creator may read (archived ones included
        // for their owner, who may restore them).
        const readable = await db
          .selectFrom("modpacks")
          .select("id")
          .where("id", "in", modpackIds)
          .where(readableBy(caller, { includeArchived: true }))
          .execute();
        const found = new Set(readable.map((row) => row.id));
        const unreadable = modpackIds.find((id) => !found.has(id));
        if (unreadable) throw unprocessable(`Modpack ${unreadable} is not one you may read`);
      }
      const { token, tokenHash } = issue();
      const expiresAt = new Date(now() + input.expiresInDays * DAY_MS);
      // The user's row is locked while counting, so concurrent creations cannot pass the bound together.
      const row = await db.transaction().execute(async (trx) => {
        await trx.selectFrom("users").select("id").where("id", "=", caller.userId).forUpdate().execute();
        const live = await trx
          .selectFrom("apiTokens")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("userId", "=", caller.userId)
          .where("expiresAt", ">", new Date(now()))
          .executeTakeFirstOrThrow();
        if (Number(live.count) >= maxPerUser) {
          throw conflict(
            `You already hold ${maxPerUser} API tokens, the most allowed; revoke one before creating another`,
          );
        }
        return trx
          .insertInto("apiTokens")
          .values({ userId: caller.userId, name: input.name, tokenHash, expiresAt, scopes: input.scopes, modpackIds })
          .returning(tokenColumns)
          .executeTakeFirstOrThrow();
      });
      return { ...toApiToken(row), token };
    },

    list(caller, input) {
      return listPage(db, input, {
        list: "tokens",
        filters: {},
        rows: db
          .selectFrom("apiTokens")
          .where("apiTokens.userId", "=", caller.userId)
          .where("apiTokens.expiresAt", ">", new Date(now())),
        sort: { column: "apiTokens.createdAt", type: "timestamptz", order: "desc", id: "apiTokens.id" },
        // At most a few dozen a user: counted in the page's own statement.
        count: "withPage",
        cursors: false,
        columns: (rows) => rows.select(tokenColumns),
        toItem: toApiToken,
      });
    },

    async revoke(caller, { id }) {
      const deleted = await db
        .deleteFrom("apiTokens")
        .where("id", "=", id)
        .where("userId", "=", caller.userId)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) throw notFound("Token not found");
      await revocations.publish({ kind: "token", id });
    },
  };
}
