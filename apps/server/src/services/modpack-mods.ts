import { conflict, notFound, type Services } from "@modpack/contract";
import { type SqlBool, sql } from "kysely";
import type { AnySelect } from "../db/counts.js";
import type { Db } from "../db/database.js";
import { findRequirements } from "../db/mod-requirements.js";
import { linkColumns, linkMods, packModsPage } from "../db/modpack-mods.js";
import { recordRevision } from "../db/modpack-revisions.js";
import { changeModpack } from "../db/modpacks.js";
import {
  linksMatching,
  type ModAnswerRow,
  modColumns,
  modTagsCondition,
  resolveModReference,
  toMod,
  withModRows,
} from "../db/mods.js";
import { type FixedPageAt, listPage } from "../db/paging.js";
import { apiTime, type ReadTime } from "../db/times.js";
import { announceModpackChanged } from "../db/webhooks.js";
import type { WorkshopClient } from "../workshop/client.js";
import type { JobQueue } from "./ports.js";

const sortColumns = {
  createdAt: "link.addedAt",
  updatedAt: "mods.updatedAt",
  name: "link.modName",
} as const;

/** A link row as the contract answers it (without what the add call adds to it). */
function toLink<Row extends { createdAt: Date }>(row: Row) {
  return { ...row, createdAt: row.createdAt.toISOString() };
}

/**
 * The mods of one modpack. The `ModpackAccess` each method gets has already passed the
 * procedure's resource rule (read, add-mod, remove-mod), so nothing here checks access again.
 */
export interface ModpackModsDependencies {
  db: Db;
  workshop: WorkshopClient;
  /** Queues the `modpack.changed` event of a change window. */
  jobs: Pick<JobQueue, "send">;
  /** How long after a modpack's first change its `modpack.changed` event is sent. */
  changedWindowSeconds: number;
}

export function modpackModsService(deps: ModpackModsDependencies): Services["modpackMods"] {
  const { db, workshop } = deps;
  const announce = announceModpackChanged({ jobs: deps.jobs, windowSeconds: deps.changedWindowSeconds });

  return {
    async list(modpack, input) {
      const { search, tags, sortBy, sortOrder } = input;
      let ownLinks: AnySelect = db
        .selectFrom("modpackMods as link")
        .where("link.modpackId", "=", modpack.id)
        .where("link.isActive", "=", true);
      // The links keep their mod's tags and name (migration 0011): filtering by tag and sorting by
      // name read the modpack's own rows and index entries, not its mods' catalogue rows.
      if (tags.length > 0) ownLinks = ownLinks.where(modTagsCondition(tags, "link.modTags"));
      const sort = {
        column: sortColumns[sortBy],
        // Cursors name the order by the catalogue column the copy stands for.
        ...(sortBy === "name" ? { cursorName: "mods.name" } : {}),
        type: sortBy === "name" ? ("text" as const) : ("timestamptz" as const),
        order: sortOrder,
        id: "link.id",
      };
      const common = {
        list: "modpackMods",
        filters: { modpackId: modpack.id, search, tags },
        sort,
        toItem: (row: ModAnswerRow & { addedAt: ReadTime }) => ({ ...toMod(row), addedAt: apiTime(row.addedAt) }),
      };
      if (sortBy !== "updatedAt") {
        // In load order or by name, the page is cut from the links' index before any catalogue row
        // is read. The modpack's size is counted exactly from the links alone. A search walks that
        // index a bounded distance, testing each link's mod by primary key, and when the page is
        // not full by then (a rare word, or one whose matches sit further down), reads every match
        // of the modpack instead: the catalogue's trigram matches joined to the links, or each
        // link's mod tested, whichever the planner finds cheaper. It counts only the matches its
        // page read, as the catalogue does: an exact count would test every one of a large
        // modpack's mods for the words.
        return listPage(db, input, {
          ...common,
          ...(search
            ? {
                rows: linksMatching(ownLinks, search),
                count: "matched" as const,
                sortWalk: {
                  table: "link" as const,
                  from: ownLinks,
                  filter: (rows: AnySelect) => linksMatching(rows, search),
                },
              }
            : {
                rows: ownLinks,
                count: "exact" as const,
                // The modpack's page most read: one fixed statement (see `packModsPage`).
                fixedPage: (at: FixedPageAt) => packModsPage(modpack.id, sortBy, sortOrder, tags, at),
              }),
          columns: (rows) => rows.select(["link.modId", "link.addedAt"]),
          completePage: (page) => withModRows(page, "page.modId").select(modColumns),
        });
      }
      // By the mods' update time, which no index of the links holds: a search's page reads and
      // counts every match of the modpack (the catalogue's trigram matches joined to the links, or
      // each link's mod tested, whichever the planner finds cheaper); without one, every link's mod
      // is read by primary key and sorted. The cost follows the matches or the modpack, never the
      // catalogue.
      const matching = search ? linksMatching(ownLinks, search) : withModRows(ownLinks, "link.modId");
      return listPage(db, input, {
        ...common,
        rows: matching,
        countRows: search ? matching : ownLinks,
        ...(search ? { count: "matched" as const, everyMatch: true } : { count: "exact" as const }),
        columns: (rows) => rows.select(modColumns).select("link.addedAt"),
      });
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
        const linked = await linkMods(trx, modpack.id, [...requirements.mods, mod], caller.userId);
        const dependenciesAdded = linked
          .filter((link) => link.modId !== mod.id)
          .map((link) => ({ ...toLink(link), workshopId: workshopIdOf.get(link.modId) ?? "" }));
        const added = linked.find((link) => link.modId === mod.id);
        if (linked.length > 0) {
          await changeModpack(trx, modpack.id);
          // The mod and the requirements it brought: one revision.
          await recordRevision(trx, modpack.id, { reason: "mods-added", authorId: caller.userId, announce });
        }
        if (added) return { ...toLink(added), created: true, dependenciesAdded };
        const existing = await trx
          .selectFrom("modpackMods")
          .select(linkColumns)
          .where("modpackId", "=", modpack.id)
          .where("modId", "=", mod.id)
          .executeTakeFirstOrThrow();
        return { ...toLink(existing), created: false, dependenciesAdded };
      });
    },

    async remove(caller, modpack, { modId, force }) {
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
        await changeModpack(trx, modpack.id);
        await recordRevision(trx, modpack.id, { reason: "mods-removed", authorId: caller.userId, announce });
        return { message: "Mod removed from the modpack" };
      });
    },
  };
}
