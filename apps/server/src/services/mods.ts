import { notFound, type Services, unprocessable, workshopIdOf } from "@modpack/contract";
import { sql } from "kysely";
import type { AnySelect } from "../db/counts.js";
import type { Db } from "../db/database.js";
import {
  classifyChange,
  loadHolders,
  type ModChange,
  type ModChangeKind,
  publishModsUpdated,
} from "../db/mod-changes.js";
import { findNewErrors, notifyNewErrors } from "../db/modpack-check.js";
import { readableBy } from "../db/modpacks.js";
import {
  cataloguePage,
  catalogueSearchPage,
  fetchItem,
  HTTP_URL,
  linksMatching,
  modColumns,
  modSearchCondition,
  modTagsCondition,
  resolveModReference,
  toMod,
  upsertWorkshopItems,
  withModRows,
} from "../db/mods.js";
import { type FixedPageAt, listPage, rowsByIds } from "../db/paging.js";
import type { ModRow } from "../db/schema.js";
import { inFlightCounter } from "../user-limits.js";
import type { WorkshopClient } from "../workshop/client.js";
import type { JobQueue } from "./ports.js";
import { MOD_UPDATE_QUEUE } from "./ports.js";

function changeOf(mod: ModRow, change: ModChangeKind): ModChange {
  return {
    modId: mod.id,
    workshopId: mod.workshopId,
    name: mod.name,
    change,
    timeUpdated: mod.timeUpdated?.toISOString() ?? null,
  };
}

const modSortColumns = {
  createdAt: "mods.createdAt",
  updatedAt: "mods.updatedAt",
  name: "mods.name",
} as const;

export interface ModsDependencies {
  db: Db;
  workshop: WorkshopClient;
  jobs: JobQueue;
  /** How many refreshes one user may have in flight on this instance (0: no bound). */
  maxRunningRefreshesPerUser: number;
}

/** The read version of a catalogue mod, from its primary key alone; undefined when there is no such mod. */
export async function findModReadVersion(db: Db, id: string): Promise<string | undefined> {
  const row = await db.selectFrom("mods").select("version").where("id", "=", id).executeTakeFirst();
  return row ? `m${row.version}` : undefined;
}

export function modsService(deps: ModsDependencies): Services["mods"] {
  const { db, workshop, jobs } = deps;
  // A refresh waits on the Steam Web API; one user cannot hold more than a few of them at once.
  const refreshes = inFlightCounter({
    limit: deps.maxRunningRefreshesPerUser,
    what: "mod refreshes in progress",
    retryAfterSeconds: 2,
  });
  let tagCache: { version: string; tags: { name: string; count: number }[] } | undefined;

  async function loadMod(id: string): Promise<ModRow> {
    const row = await db.selectFrom("mods").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw notFound("Mod not found");
    return row;
  }

  return {
    async list(caller, input) {
      const { search, tags, modpackId, sortBy, sortOrder } = input;
      // With a modpack: its own links first (a set bounded by the modpack, counted exactly), then
      // their catalogue rows; the links answer nothing when the caller may not read the modpack.
      const readable = (id: string) =>
        db.selectFrom("modpacks").select("modpacks.id").where("modpacks.id", "=", id).where(readableBy(caller));
      if (modpackId && sortBy === "name") {
        // By name within a modpack: the links keep their mod's name, so the page is cut from the
        // modpack's own index entries in name order (ties by mod id), and only its rows read the catalogue.
        let links: AnySelect = db
          .selectFrom("modpackMods as link")
          .where("link.modpackId", "=", modpackId)
          .where("link.modpackId", "in", readable(modpackId))
          .where("link.isActive", "=", true);
        if (tags.length > 0) links = links.where(modTagsCondition(tags, "link.modTags"));
        // A search walks that index a bounded distance, testing each link's mod by primary key,
        // else reads every match of the modpack (see modpack-mods.ts).
        const inModpack = search
          ? {
              rows: linksMatching(links, search),
              count: "matched" as const,
              sortWalk: {
                table: "link" as const,
                from: links,
                filter: (rows: AnySelect) => linksMatching(rows, search),
              },
            }
          : { rows: links, count: "exact" as const };
        const result = await listPage(db, input, {
          list: "mods",
          filters: { search, tags, modpackId },
          ...inModpack,
          sort: { column: "link.modName", cursorName: "mods.name", type: "text", order: sortOrder, id: "link.modId" },
          columns: (rows) => rows.select("link.modId"),
          completePage: (page) => withModRows(page, "page.modId").select(modColumns),
          toItem: toMod,
        });
        if (result.pagination.total === 0 && !(await readable(modpackId).executeTakeFirst())) {
          throw notFound("Modpack not found");
        }
        return result;
      }
      const catalogue = db.selectFrom("mods");
      type Catalogue = typeof catalogue;
      const filter = (rows: Catalogue) =>
        rows
          .$if(Boolean(search), (query) => query.where(modSearchCondition(search ?? "")))
          .$if(tags.length > 0, (query) => query.where(modTagsCondition(tags)));
      const filtered = Boolean(search) || tags.length > 0;
      const sort = {
        column: modSortColumns[sortBy],
        type: sortBy === "name" ? ("text" as const) : ("timestamptz" as const),
        order: sortOrder,
        id: "mods.id",
      };
      const common = {
        list: "mods",
        filters: { search, tags, modpackId },
        sort,
        columns: (rows: Catalogue) => rows.select(modColumns),
        toItem: toMod,
      };
      if (!modpackId) {
        // The catalogue: a filter's page walks the sort index a bounded distance, else sorts every
        // match read from the filter's indexes, and counts only what it read (listPage's `matched`
        // walk, written out by `catalogueSearchPage`); the whole catalogue's page is `cataloguePage`.
        return listPage(db, input, {
          ...common,
          rows: filter(catalogue),
          ...(filtered
            ? {
                count: "matched" as const,
                fixedPage: (at: FixedPageAt) => catalogueSearchPage(sortBy, sortOrder, { search, tags }, at),
              }
            : {
                count: "bounded" as const,
                fixedPage: (at: FixedPageAt) => cataloguePage(sortBy, sortOrder, at),
              }),
        });
      }
      // One modpack's mods are counted exactly. A search among them is sorted by a catalogue
      // column no index of the links holds, so its page reads every match of the modpack (each
      // link's mod by primary key, or the trigram index's matches joined to the links, whichever
      // the planner finds cheaper) and counts them as it sorts them; otherwise each link's row is
      // read by primary key.
      const links = db
        .selectFrom("modpackMods")
        .where("modpackMods.modpackId", "=", modpackId)
        .where("modpackMods.modpackId", "in", readable(modpackId))
        .where("modpackMods.isActive", "=", true);
      const inModpack = search
        ? (links.innerJoin("mods", "mods.id", "modpackMods.modId") as unknown as Catalogue)
        : rowsByIds<Catalogue>(db, "mods", links.select("modpackMods.modId as id"));
      const result = await listPage(db, input, {
        ...common,
        rows: filter(inModpack),
        ...(search ? { count: "matched" as const, everyMatch: true } : { count: "exact" as const }),
      });
      // Tell an empty modpack from one the caller may not read.
      if (modpackId && result.pagination.total === 0 && !(await readable(modpackId).executeTakeFirst())) {
        throw notFound("Modpack not found");
      }
      return result;
    },

    async tags() {
      // Aggregating the tags reads the whole catalogue: computed once per catalogue version (the
      // newest `updated_at` and the row count estimate, one index probe) and served from memory.
      const version = await sql<{ version: string }>`
        select coalesce((select max(updated_at) from mods)::text, '') || '/' ||
          (select reltuples::bigint from pg_class where oid = 'mods'::regclass)::text as version
      `.execute(db);
      const current = version.rows[0]?.version ?? "";
      if (tagCache?.version !== current) {
        const { rows } = await sql<{ name: string; count: number }>`
          select tag as name, count(*)::int as count
          from mods cross join lateral unnest(mods.tags) as tag
          group by tag
          order by count(*) desc, tag asc
        `.execute(db);
        tagCache = { version: current, tags: rows.map((row) => ({ name: row.name, count: Number(row.count) })) };
      }
      return { tags: tagCache.tags };
    },

    async get({ id }) {
      const row = await loadMod(id);
      return { mod: toMod(row), version: `m${row.version}` };
    },

    async create({ modAtribute: reference }) {
      const text = reference.trim();
      if (workshopIdOf(text) === null && !HTTP_URL.test(text)) throw unprocessable("Give a workshop URL or id");
      const { mod, created } = await resolveModReference(db, workshop, text);
      return { ...toMod(mod), created };
    },

    refresh(caller, { id }) {
      return refreshes.run(caller.userId, async () => {
        const current = await loadMod(id);
        const result = await fetchItem(workshop, current.workshopId);
        let row: ModRow | undefined;
        let change: ModChange | null = null;
        if (result.ok) {
          const kind = classifyChange(current, result.item);
          if (kind) {
            const timeUpdated = result.item.timeUpdated?.toISOString() ?? null;
            change = { ...changeOf(current, kind), name: result.item.title, timeUpdated };
          }
          [row] = await upsertWorkshopItems(db, [result.item]);
        } else {
          if (current.isActive) change = changeOf(current, "removed");
          // Gone from the workshop (removed, banned, or no longer a Project Zomboid item): keep it, inactive.
          row = await db
            .updateTable("mods")
            .set({ isActive: false, updatedAt: sql<Date>`now()` })
            .where("id", "=", id)
            .returningAll()
            .executeTakeFirst();
          if (!row) throw notFound("Mod not found");
        }
        const newErrors = await findNewErrors(db, [current]);
        await notifyNewErrors(db, newErrors);
        // A refresh that found a change is a run of its own: one `mods.updated` per modpack holding the mod.
        if (change) await publishModsUpdated({ db, jobs }, [change], await loadHolders(db, [change]), newErrors);
        return toMod(row ?? current);
      });
    },

    async updateAll(caller) {
      const jobId = await jobs.send(MOD_UPDATE_QUEUE, { requestedBy: caller.userId }, { singletonKey: "update-all" });
      return {
        message: jobId ? "Mod update check queued" : "A mod update check is already queued",
        jobId,
      };
    },
  };
}
