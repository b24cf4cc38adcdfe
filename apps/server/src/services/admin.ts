import { notFound, type Services, unprocessable } from "@modpack/contract";
import { sql } from "kysely";
import type { RevocationChannel } from "../auth/revocations.js";
import type { Db } from "../db/database.js";
import type { JobStatus } from "../db/schema.js";
import type { Jobs } from "../jobs/boss.js";
import { loadModpack } from "./modpacks.js";
import { createNotifications } from "./notifications.js";
import { likePattern, offsetOf, pagination } from "./paging.js";
import { toUser } from "./users.js";

function countByStatus(rows: { status: JobStatus; count: number | string }[]): Record<JobStatus, number> {
  const counts = { pending: 0, running: 0, completed: 0, failed: 0 };
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

export function adminService(db: Db, jobs: Jobs, revocations: RevocationChannel): Services["admin"] {
  const selectUsers = () =>
    db
      .selectFrom("users")
      .selectAll("users")
      .select((eb) =>
        eb
          .selectFrom("modpacks")
          .select((inner) => inner.fn.countAll<number>().as("count"))
          .whereRef("modpacks.ownerId", "=", "users.id")
          .as("modpackCount"),
      );
  const toAdminUser = (row: Awaited<ReturnType<ReturnType<typeof selectUsers>["executeTakeFirstOrThrow"]>>) => ({
    ...toUser(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    modpackCount: Number(row.modpackCount ?? 0),
  });

  return {
    async listUsers(input) {
      let query = selectUsers();
      if (input.search) {
        const pattern = likePattern(input.search);
        query = query.where((eb) => eb.or([eb("users.name", "ilike", pattern), eb("users.email", "ilike", pattern)]));
      }
      const rows = await query
        .select(sql<number>`count(*) over ()`.as("fullCount"))
        .orderBy("users.createdAt", "desc")
        .orderBy("users.id", "desc")
        .limit(input.limit)
        .offset(offsetOf(input.page, input.limit))
        .execute();
      let total = rows[0] ? Number(rows[0].fullCount) : 0;
      if (rows.length === 0 && input.page > 1) {
        const counted = await db
          .selectFrom("users")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where((eb) =>
            input.search
              ? eb.or([
                  eb("users.name", "ilike", likePattern(input.search)),
                  eb("users.email", "ilike", likePattern(input.search)),
                ])
              : eb.lit(true),
          )
          .executeTakeFirstOrThrow();
        total = Number(counted.count);
      }
      return { data: rows.map(toAdminUser), pagination: pagination(input.page, input.limit, total) };
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
      await revocations.publish(`user:${input.id}`);
      return toAdminUser(await selectUsers().where("users.id", "=", input.id).executeTakeFirstOrThrow());
    },

    async verifyModpack(_caller, input) {
      await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("modpacks")
          .set({ isVerified: input.isVerified, updatedAt: sql<Date>`now()` })
          .where("id", "=", input.id)
          .returning(["ownerId", "name"])
          .executeTakeFirst();
        if (!row) throw notFound("Modpack not found");
        await createNotifications(trx, [
          {
            userId: row.ownerId,
            title: input.isVerified ? "Modpack verified" : "Modpack verification removed",
            content: input.isVerified
              ? `"${row.name}" now carries the verified badge.`
              : `"${row.name}" no longer carries the verified badge.`,
            type: input.isVerified ? "success" : "warning",
            metadata: { modpackId: input.id, isVerified: input.isVerified },
          },
        ]);
      });
      return loadModpack(db, input.id);
    },

    async stats() {
      const [users, modpacks, mods, imports, exports, queues] = await Promise.all([
        db
          .selectFrom("users")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("modpacks")
          .select([
            sql<number>`count(*)`.as("total"),
            sql<number>`count(*) filter (where is_public and is_active)`.as("public"),
            sql<number>`count(*) filter (where not is_active)`.as("archived"),
          ])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("mods")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("imports")
          .select(["status", sql<number>`count(*)`.as("count")])
          .groupBy("status")
          .execute(),
        db
          .selectFrom("exports")
          .select(["status", sql<number>`count(*)`.as("count")])
          .groupBy("status")
          .execute(),
        jobs.boss.getQueues(),
      ]);
      return {
        users: Number(users.count),
        modpacks: {
          total: Number(modpacks.total),
          public: Number(modpacks.public),
          archived: Number(modpacks.archived),
        },
        mods: Number(mods.count),
        imports: countByStatus(imports),
        exports: countByStatus(exports),
        queues: queues
          .map((queue) => ({
            name: queue.name,
            queued: queue.queuedCount,
            active: queue.activeCount,
            deferred: queue.deferredCount,
            total: queue.totalCount,
          }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      };
    },
  };
}
