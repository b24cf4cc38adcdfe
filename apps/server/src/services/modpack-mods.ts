import { type ModpackModLink, notFound, type Services } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { WorkshopClient } from "../workshop/client.js";
import { modSearchCondition, modTagsCondition, resolveModReference, toMod, totalOverAll } from "./mods.js";
import { offsetOf, pagination } from "./paging.js";

const sortColumns = {
  createdAt: "link.addedAt",
  updatedAt: "mods.updatedAt",
  name: "mods.name",
} as const;

interface LinkRow {
  id: string;
  modpackId: string;
  modId: string;
  isActive: boolean;
  createdAt: Date;
}

function toLink(row: LinkRow, created: boolean): ModpackModLink {
  return {
    id: row.id,
    modpackId: row.modpackId,
    modId: row.modId,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    created,
  };
}

/**
 * The mods of one modpack. The `ModpackAccess` each method gets has already passed the
 * procedure's resource rule (read, add-mod, remove-mod), so nothing here checks access again.
 */
export function modpackModsService(deps: { db: Db; workshop: WorkshopClient }): Services["modpackMods"] {
  const { db, workshop } = deps;

  return {
    async list(modpack, input) {
      const { page, limit, search, tags, sortBy, sortOrder } = input;
      let query = db
        .selectFrom("modpackMods as link")
        .innerJoin("mods", "mods.id", "link.modId")
        .where("link.modpackId", "=", modpack.id)
        .where("link.isActive", "=", true);
      if (search) query = query.where(modSearchCondition(search));
      if (tags.length > 0) query = query.where(modTagsCondition(tags));

      const rows = await query
        .selectAll("mods")
        .select(["link.addedAt", totalOverAll.as("total")])
        .orderBy(sortColumns[sortBy], sortOrder)
        .orderBy("link.id", sortOrder)
        .limit(limit)
        .offset(offsetOf(page, limit))
        .execute();

      let total = rows[0]?.total ?? 0;
      if (rows.length === 0 && page > 1) {
        const counted = await query.select(sql<number>`count(*)::int`.as("count")).executeTakeFirstOrThrow();
        total = Number(counted.count);
      }
      return {
        data: rows.map(({ total: _total, addedAt, ...row }) => ({ ...toMod(row), addedAt: addedAt.toISOString() })),
        pagination: pagination(page, limit, total),
      };
    },

    async add(caller, modpack, reference) {
      const { mod } = await resolveModReference(db, workshop, reference);
      return db.transaction().execute(async (trx) => {
        // Inserts the link, or reactivates a removed one (it goes to the end of the load order).
        // An active link is left alone and nothing comes back, so of two concurrent adds only one
        // reports `created`: the other waits on the row and then finds it active.
        const added = await trx
          .insertInto("modpackMods")
          .values({ modpackId: modpack.id, modId: mod.id, addedBy: caller.userId, addedAt: sql<Date>`now()` })
          .onConflict((conflict) =>
            conflict
              .columns(["modpackId", "modId"])
              .doUpdateSet({
                isActive: true,
                addedBy: caller.userId,
                addedAt: sql<Date>`now()`,
                updatedAt: sql<Date>`now()`,
              })
              .where("modpackMods.isActive", "=", false),
          )
          .returning(["id", "modpackId", "modId", "isActive", "createdAt"])
          .executeTakeFirst();
        if (added) {
          await trx.updateTable("modpacks").set({ updatedAt: sql<Date>`now()` }).where("id", "=", modpack.id).execute();
          return toLink(added, true);
        }
        const existing = await trx
          .selectFrom("modpackMods")
          .select(["id", "modpackId", "modId", "isActive", "createdAt"])
          .where("modpackId", "=", modpack.id)
          .where("modId", "=", mod.id)
          .executeTakeFirstOrThrow();
        return toLink(existing, false);
      });
    },

    async remove(_caller, modpack, modId) {
      return db.transaction().execute(async (trx) => {
        const removed = await trx
          .updateTable("modpackMods")
          .set({ isActive: false, updatedAt: sql<Date>`now()` })
          .where("modpackId", "=", modpack.id)
          .where("modId", "=", modId)
          .where("isActive", "=", true)
          .returning("id")
          .executeTakeFirst();
        if (!removed) throw notFound("Mod not found in this modpack");
        await trx.updateTable("modpacks").set({ updatedAt: sql<Date>`now()` }).where("id", "=", modpack.id).execute();
        return { message: "Mod removed from the modpack" };
      });
    },
  };
}
