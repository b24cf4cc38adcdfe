import { type JobStatus, notFound, type Services, unprocessable } from "@modpack/contract";
import { type ExpressionBuilder, sql } from "kysely";
import type { Db } from "../db/database.js";
import { loadModpack } from "../db/modpacks.js";
import { notify } from "../db/notifications.js";
import { listPage } from "../db/paging.js";
import type { Database, UserRow } from "../db/schema.js";
import { likePattern } from "../db/search-text.js";
import { toUser } from "../db/users.js";
import type { JobQueue, RevocationPublisher } from "./ports.js";

function countByStatus(rows: { status: JobStatus; count: number | string }[]): Record<JobStatus, number> {
  const counts = { pending: 0, running: 0, completed: 0, failed: 0 };
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

/** How long GET /admin/stats serves the same table counts. */
export const STATS_TTL_MS = 10_000;

export function adminService(db: Db, jobs: JobQueue, revocations: RevocationPublisher): Services["admin"] {
  let countsCache: { at: number; counts: ReturnType<typeof countTables> } | undefined;
  /** How many modpacks the user whose id `userId` names owns. */
  const modpackCount = (userId: "users.id" | "page.id") => (eb: ExpressionBuilder<Database, "users">) =>
    eb
      .selectFrom("modpacks")
      .select((inner) => inner.fn.countAll<number>().as("count"))
      .where("modpacks.ownerId", "=", sql.ref<string>(userId))
      .as("modpackCount");
  const toAdminUser = (row: UserRow & { modpackCount: number | string | null }) => ({
    ...toUser(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    modpackCount: Number(row.modpackCount ?? 0),
  });

  return {
    listUsers(input) {
      const { search } = input;
      const pattern = search ? likePattern(search) : undefined;
      return listPage(db, input, {
        list: "admin.users",
        filters: { search },
        rows: pattern
          ? db
              .selectFrom("users")
              .where((eb) => eb.or([eb("users.name", "ilike", pattern), eb("users.email", "ilike", pattern)]))
          : db.selectFrom("users"),
        sort: { column: "users.createdAt", type: "timestamptz", order: "desc", id: "users.id" },
        count: pattern === undefined ? "bounded" : "matched",
        columns: (rows) => rows.selectAll("users"),
        // Counted for the page's users only.
        completePage: (page) => page.select(modpackCount("page.id")),
        toItem: toAdminUser,
      });
    },

    async updateUser(caller, input) {
      if (input.id === caller.userId && input.role !== "admin") {
        throw unprocessable("You cannot remove your own admin role");
      }
      const updated = await db
        .updateTable("users")
        .set({ role: input.role, updatedAt: sql<Date>`now()` })
        .where("id", "=", input.id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) throw notFound("User not found");
      await revocations.publish({ kind: "user", id: input.id });
      return toAdminUser(
        await db
          .selectFrom("users")
          .selectAll("users")
          .select(modpackCount("users.id"))
          .where("users.id", "=", input.id)
          .executeTakeFirstOrThrow(),
      );
    },

    async verifyModpack(input) {
      await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("modpacks")
          .set({ isVerified: input.isVerified, updatedAt: sql<Date>`now()` })
          .where("id", "=", input.id)
          .returning(["ownerId", "name"])
          .executeTakeFirst();
        if (!row) throw notFound("Modpack not found");
        await notify(trx, {
          userId: row.ownerId,
          title: input.isVerified ? "Modpack verified" : "Modpack verification removed",
          content: input.isVerified
            ? `"${row.name}" now carries the verified badge.`
            : `"${row.name}" no longer carries the verified badge.`,
          type: input.isVerified ? "success" : "warning",
          metadata: { modpackId: input.id, isVerified: input.isVerified },
        });
      });
      return loadModpack(db, input.id);
    },

    async stats() {
      const now = Date.now();
      if (!countsCache || now - countsCache.at >= STATS_TTL_MS) {
        countsCache = { at: now, counts: countTables() };
        // A failed count is not kept: the next request counts again.
        countsCache.counts.catch(() => {
          countsCache = undefined;
        });
      }
      const [counts, queues] = await Promise.all([countsCache.counts, jobs.counts()]);
      return {
        ...counts,
        queues: queues.sort((a, b) => a.name.localeCompare(b.name)),
      };
    },
  };

  /** Exact counts of every table: they read whole tables, so stats() serves them for STATS_TTL_MS. */
  async function countTables() {
    const count = sql<number>`count(*)`.as("count");
    const byStatus = async (table: "imports" | "exports") =>
      countByStatus(await db.selectFrom(table).select(["status", count]).groupBy("status").execute());
    const [users, modpacks, mods, imports, exports] = await Promise.all([
      db.selectFrom("users").select(count).executeTakeFirstOrThrow(),
      db
        .selectFrom("modpacks")
        .select([
          sql<number>`count(*)`.as("total"),
          sql<number>`count(*) filter (where is_public and is_active)`.as("public"),
          sql<number>`count(*) filter (where not is_active)`.as("archived"),
        ])
        .executeTakeFirstOrThrow(),
      db.selectFrom("mods").select(count).executeTakeFirstOrThrow(),
      byStatus("imports"),
      byStatus("exports"),
    ]);
    return {
      users: Number(users.count),
      modpacks: {
        total: Number(modpacks.total),
        public: Number(modpacks.public),
        archived: Number(modpacks.archived),
      },
      mods: Number(mods.count),
      imports,
      exports,
    };
  }
}
