import { conflict, type ModpackModLink, notFound, type Services } from "@modpack/contract";
import { type SqlBool, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { WorkshopClient } from "../workshop/client.js";
import { modSearchCondition, modTagsCondition, resolveModReference, toMod } from "./mods.js";
import {
  afterPosition,
  checkPageDepth,
  cursorKey,
  decodeCursor,
  encodeCursor,
  offsetOf,
  pagination,
  sortText,
} from "./paging.js";
import { findRequirements, linkMods } from "./requirements.js";

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

function toLink(row: LinkRow): Omit<ModpackModLink, "created" | "dependenciesAdded"> {
  return {
    id: row.id,
    modpackId: row.modpackId,
    modId: row.modId,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
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
      const { page, cursor, limit, search, tags, sortBy, sortOrder } = input;
      checkPageDepth(page, limit, cursor);
      const sortKey = cursorKey(`modpackMods.${sortBy}.${sortOrder}`, { modpackId: modpack.id, search, tags });
      const position = cursor === undefined ? undefined : decodeCursor(cursor, sortKey);
      // The modpack's own links (`offset 0` keeps them a set of their own): every sort and filter
      // works on the modpack's rows, never on a walk of the whole catalogue in name order. In load
      // order with no filter, the page is cut from the links' index before any catalogue row is read.
      const loadOrderOnly = sortBy === "createdAt" && !search && tags.length === 0;
      const ownLinks = db
        .selectFrom("modpackMods")
        .where("modpackMods.modpackId", "=", modpack.id)
        .where("modpackMods.isActive", "=", true);
      let linkRows = ownLinks.select(["modpackMods.id", "modpackMods.modId", "modpackMods.addedAt"]);
      if (loadOrderOnly) {
        if (position) {
          linkRows = linkRows.where(
            afterPosition("modpackMods.addedAt", "modpackMods.id", "timestamptz", sortOrder, position),
          );
        }
        linkRows = linkRows
          .orderBy("modpackMods.addedAt", sortOrder)
          .orderBy("modpackMods.id", sortOrder)
          .limit(limit + 1)
          .offset(position ? 0 : offsetOf(page, limit));
      } else {
        linkRows = linkRows.offset(0);
      }
      // Each link's catalogue row by its primary key (`offset 0` keeps the lateral a nested loop):
      // a merge or hash join would read the catalogue to find a few thousand rows.
      let query = db.selectFrom(linkRows.as("link")).innerJoinLateral(
        (eb) => eb.selectFrom("mods").selectAll("mods").whereRef("mods.id", "=", "link.modId").offset(0).as("mods"),
        (join) => join.onTrue(),
      );
      if (search) query = query.where(modSearchCondition(search));
      if (tags.length > 0) query = query.where(modTagsCondition(tags));
      const column = sortColumns[sortBy];
      let rowsQuery = query;
      if (position && !loadOrderOnly) {
        rowsQuery = rowsQuery.where(
          afterPosition(column, "link.id", sortBy === "name" ? "text" : "timestamptz", sortOrder, position),
        );
      }
      const [rows, counted] = await Promise.all([
        rowsQuery
          .selectAll("mods")
          .select(["link.addedAt", "link.id as linkId", sortText(column).as("sortValue")])
          .orderBy(column, sortOrder)
          .orderBy("link.id", sortOrder)
          .limit(limit + 1)
          .offset(position || loadOrderOnly ? 0 : offsetOf(page, limit))
          .execute(),
        // Bounded by the modpack's size: counted exactly (from the links' index alone when unfiltered).
        search || tags.length > 0
          ? query.select(sql<number>`count(*)::int`.as("count")).executeTakeFirstOrThrow()
          : ownLinks.select(sql<number>`count(*)::int`.as("count")).executeTakeFirstOrThrow(),
      ]);
      const last = rows.length > limit ? rows[limit - 1] : undefined;
      return {
        data: rows.slice(0, limit).map(({ addedAt, linkId: _linkId, sortValue: _sortValue, ...row }) => ({
          ...toMod(row),
          addedAt: addedAt.toISOString(),
        })),
        pagination: pagination(page, limit, Number(counted.count), {
          totalExact: true,
          nextCursor: last ? encodeCursor(sortKey, { value: last.sortValue, id: last.linkId }) : null,
        }),
      };
    },

    async add(caller, modpack, { modAtribute: reference }) {
      const { mod } = await resolveModReference(db, workshop, reference);
      const present = await db
        .selectFrom("modpackMods as link")
        .innerJoin("mods", "mods.id", "link.modId")
        .select("mods.workshopId")
        .where("link.modpackId", "=", modpack.id)
        .where("link.isActive", "=", true)
        .execute();
      const requirements = await findRequirements(db, workshop, [mod], new Set(present.map((row) => row.workshopId)));
      const workshopIdOf = new Map(requirements.mods.map((required) => [required.id, required.workshopId]));
      return db.transaction().execute(async (trx) => {
        // Links the requirements (deepest first) and then the mod, or reactivates removed links
        // (they go to the end of the load order). Active links are left alone and nothing comes
        // back for them, so of two concurrent adds only one reports `created`: the other waits on
        // the row and then finds it active.
        const linked = await linkMods(
          trx,
          modpack.id,
          [...requirements.mods.map((required) => required.id), mod.id],
          caller.userId,
        );
        const dependenciesAdded = linked
          .filter((link) => link.modId !== mod.id)
          .map((link) => ({ ...toLink(link), workshopId: workshopIdOf.get(link.modId) ?? "" }));
        const added = linked.find((link) => link.modId === mod.id);
        if (linked.length > 0) {
          await trx.updateTable("modpacks").set({ updatedAt: sql<Date>`now()` }).where("id", "=", modpack.id).execute();
        }
        if (added) return { ...toLink(added), created: true, dependenciesAdded };
        const existing = await trx
          .selectFrom("modpackMods")
          .select(["id", "modpackId", "modId", "isActive", "createdAt"])
          .where("modpackId", "=", modpack.id)
          .where("modId", "=", mod.id)
          .executeTakeFirstOrThrow();
        return { ...toLink(existing), created: false, dependenciesAdded };
      });
    },

    async remove(modpack, { modId, force }) {
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
        if (!force) {
          // Rolls the removal back when other active mods of the modpack require this one.
          const dependents = await trx
            .selectFrom("modpackMods as link")
            .innerJoin("mods", "mods.id", "link.modId")
            .select(["mods.name", "mods.workshopId"])
            .where("link.modpackId", "=", modpack.id)
            .where("link.isActive", "=", true)
            .where(
              sql<SqlBool>`${sql.ref("mods.requiredWorkshopIds")} @> array[(select m.workshop_id from mods m where m.id = ${modId})]::text[]`,
            )
            .orderBy("link.addedAt")
            .orderBy("link.id")
            .execute();
          if (dependents.length > 0) {
            const names = dependents.map((row) => `"${row.name}" (workshop ${row.workshopId})`).join(", ");
            throw conflict(
              `Other mods of the modpack require this mod: ${names}. Remove them first, or remove it anyway with force=true.`,
            );
          }
        }
        await trx.updateTable("modpacks").set({ updatedAt: sql<Date>`now()` }).where("id", "=", modpack.id).execute();
        return { message: "Mod removed from the modpack" };
      });
    },
  };
}
