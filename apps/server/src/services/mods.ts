import { isDeepStrictEqual } from "node:util";
import { badGateway, type Mod, notFound, type Services, unprocessable, workshopIdOf } from "@modpack/contract";
import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ModRow } from "../db/schema.js";
import { type WorkshopClient, WorkshopError, type WorkshopItem, type WorkshopItemResult } from "../workshop/client.js";
import { PARSER_VERSION } from "../workshop/description.js";
import { inLockOrder } from "./lock-order.js";
import { classifyChange, loadHolders, type ModChange, type ModChangeKind, publishModsUpdated } from "./mod-changes.js";
import { findNewErrors, notifyNewErrors } from "./modpack-check.js";
import { readableBy } from "./modpacks.js";
import { buildModIdsOf } from "./pack-mods.js";
import { type AnySelect, listPage, rowsByIds, searchTextCondition } from "./paging.js";
import type { JobQueue } from "./ports.js";
import { MOD_UPDATE_QUEUE } from "./ports.js";
import { keepWholeSelections, recordCatalogueRevisions } from "./revision-records.js";
import { inFlightCounter } from "./user-limits.js";

const HTTP_URL = /^https?:\/\//i;
const WORKSHOP_UNREACHABLE = "The Steam Workshop could not be reached; try again";

function changeOf(mod: ModRow, change: ModChangeKind): ModChange {
  return {
    modId: mod.id,
    workshopId: mod.workshopId,
    name: mod.name,
    change,
    timeUpdated: mod.timeUpdated?.toISOString() ?? null,
  };
}

export function toMod(row: ModRow): Mod {
  return {
    id: row.id,
    name: row.name,
    workshopId: row.workshopId,
    platformModId: row.platformModIds,
    buildModIds: buildModIdsOf(row),
    mapFolders: row.mapFolders,
    requiredWorkshopIds: row.requiredWorkshopIds,
    description: row.description,
    avatarUrl: row.avatarUrl ?? "",
    tags: row.tags,
    isActive: row.isActive,
    timeUpdated: row.timeUpdated?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Adds workshop items to the catalogue or refreshes the ones already there, in one statement
 * (duplicates in the input count once, the last one winning). Answers the rows in the items' order
 * (a duplicate at its first place), whatever order the statement wrote them in, each with the
 * `xmax = 0` flag of the upsert: `inserted` is true when the statement added the row.
 */
export async function upsertWorkshopItems(db: Db, items: WorkshopItem[]): Promise<(ModRow & { inserted: boolean })[]> {
  const byId = new Map<string, WorkshopItem>();
  for (const item of items) byId.set(item.workshopId, item);
  if (byId.size === 0) return [];
  // What the rows wrote into server files before: a change of it is a revision of the packs holding them.
  const before = await db
    .selectFrom("mods")
    .select(["workshopId", ...FILE_COLUMNS])
    .where("workshopId", "=", sql<string>`any(${[...byId.keys()]}::text[])`)
    .execute();
  const rows = await db
    .insertInto("mods")
    .values(
      inLockOrder(byId.values()).map((item) => ({
        workshopId: item.workshopId,
        name: item.title,
        description: item.description,
        avatarUrl: item.previewUrl,
        platformModIds: item.platformModIds,
        modIdsB41: item.buildModIds?.["41x"] ?? null,
        modIdsB42: item.buildModIds?.["42x"] ?? null,
        parserVersion: PARSER_VERSION,
        mapFolders: item.mapFolders,
        requiredWorkshopIds: item.requiredWorkshopIds,
        tags: item.tags,
        timeUpdated: item.timeUpdated,
        isActive: true,
      })),
    )
    .onConflict((conflict) =>
      conflict.column("workshopId").doUpdateSet((eb) => ({
        name: eb.ref("excluded.name"),
        description: eb.ref("excluded.description"),
        avatarUrl: eb.ref("excluded.avatarUrl"),
        platformModIds: eb.ref("excluded.platformModIds"),
        modIdsB41: eb.ref("excluded.modIdsB41"),
        modIdsB42: eb.ref("excluded.modIdsB42"),
        parserVersion: eb.ref("excluded.parserVersion"),
        mapFolders: eb.ref("excluded.mapFolders"),
        requiredWorkshopIds: eb.ref("excluded.requiredWorkshopIds"),
        tags: eb.ref("excluded.tags"),
        timeUpdated: eb.ref("excluded.timeUpdated"),
        isActive: true,
        updatedAt: sql<Date>`now()`,
      })),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as("inserted"))
    .execute();
  const old = new Map(before.map((row) => [row.workshopId, row]));
  const changed = rows.flatMap((row) => {
    const previous = old.get(row.workshopId);
    return previous && FILE_COLUMNS.some((column) => !isDeepStrictEqual(previous[column], row[column]))
      ? [{ modId: row.id, before: previous.platformModIds, after: row.platformModIds }]
      : [];
  });
  if (changed.length > 0) {
    await keepWholeSelections(db, changed);
    await recordCatalogueRevisions(
      db,
      changed.map((change) => change.modId),
    );
  }
  const order = new Map([...byId.keys()].map((workshopId, index) => [workshopId, index]));
  return rows.sort((a, b) => (order.get(a.workshopId) ?? 0) - (order.get(b.workshopId) ?? 0));
}

/** The catalogue columns a server file reads. */
const FILE_COLUMNS = ["platformModIds", "modIdsB41", "modIdsB42", "mapFolders", "requiredWorkshopIds"] as const;

/** The one workshop item behind an id, or the reason it cannot be a mod (422), or 502. */
async function fetchItem(workshop: WorkshopClient, workshopId: string): Promise<WorkshopItemResult> {
  let results: WorkshopItemResult[];
  try {
    results = await workshop.getItems([workshopId]);
  } catch (error) {
    if (error instanceof WorkshopError) throw badGateway(WORKSHOP_UNREACHABLE);
    throw error;
  }
  return results[0] ?? { ok: false, workshopId, reason: "missing" };
}

function refusal(result: Extract<WorkshopItemResult, { ok: false }>) {
  switch (result.reason) {
    case "collection":
      return unprocessable(
        `Workshop item ${result.workshopId} is a collection; import it with POST /modpacks/{id}/import`,
      );
    case "wrong_game":
      return unprocessable(`Workshop item ${result.workshopId} is not a Project Zomboid item`);
    default:
      return unprocessable(`Workshop item ${result.workshopId} does not exist or is not available`);
  }
}

/**
 * Finds the catalogue mod a reference names: a workshop URL or id (fetched from the workshop and
 * added when the catalogue does not have it yet), or an in-game mod id already in the catalogue.
 * `created` is true when this call added the mod to the catalogue.
 */
export async function resolveModReference(
  db: Db,
  workshop: WorkshopClient,
  reference: string,
): Promise<{ mod: ModRow; created: boolean }> {
  const text = reference.trim();
  const workshopId = workshopIdOf(text);
  if (workshopId !== null) {
    const known = await db.selectFrom("mods").selectAll().where("workshopId", "=", workshopId).executeTakeFirst();
    if (known) return { mod: known, created: false };
    const result = await fetchItem(workshop, workshopId);
    if (!result.ok) throw refusal(result);
    const [row] = await upsertWorkshopItems(db, [result.item]);
    if (!row) throw new Error(`upserting workshop item ${workshopId} returned no row`);
    const { inserted, ...mod } = row;
    return { mod, created: inserted };
  }
  if (HTTP_URL.test(text)) throw unprocessable("Not a Steam Workshop URL");
  // Several workshop items may ship the same in-game id: the active one updated last wins.
  const mod = await db
    .selectFrom("mods")
    .selectAll()
    .where(sql<SqlBool>`${sql.ref("platformModIds")} @> array[${text}]::text[]`)
    .orderBy("isActive", "desc")
    .orderBy("updatedAt", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!mod) throw unprocessable(`No mod in the catalogue has in-game id ${text}; add it by workshop URL or id`);
  return { mod, created: false };
}

/**
 * Every word in the name, description or workshop id (substrings, ignoring case and accents: see
 * `searchTextCondition`), or the search is exactly an in-game id, or a workshop id or URL.
 */
export function modSearchCondition(search: string): RawBuilder<SqlBool> {
  const workshopId = workshopIdOf(search);
  const exactWorkshopId = workshopId === null ? sql`` : sql` or ${sql.ref("mods.workshopId")} = ${workshopId}`;
  return sql<SqlBool>`(${searchTextCondition("mods.searchText", search)} or ${sql.ref("mods.platformModIds")} @> array[${search}]::text[]${exactWorkshopId})`;
}

/**
 * Mods carrying any of the tags: the catalogue's `mods.tags` (uses the GIN index on `tags`), or the
 * copy a modpack's links keep (`link.modTags`).
 */
export function modTagsCondition(
  tags: string[],
  column: "mods.tags" | "link.modTags" = "mods.tags",
): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} && array[${sql.join(tags)}]::text[]`;
}

/**
 * Each link's catalogue row, as `mods`, by its primary key (`offset 0` keeps the lateral a nested
 * loop driven by the links): sorts and filters work on a modpack's rows, never on a walk of the
 * whole catalogue.
 */
export function withModRows(links: AnySelect, modId: "link.modId" | "page.modId"): AnySelect {
  return links.innerJoinLateral(
    (eb) => eb.selectFrom("mods").selectAll("mods").where("mods.id", "=", sql.ref<string>(modId)).offset(0).as("mods"),
    (join) => join.onTrue(),
  );
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
        // Joined freely: the planner finds a search's matches from the trigram indexes or from the
        // modpack's links, whichever is cheaper (see modpack-mods.ts).
        if (search) links = links.innerJoin("mods", "mods.id", "link.modId").where(modSearchCondition(search));
        const result = await listPage(db, input, {
          list: "mods",
          filters: { search, tags, modpackId },
          rows: links,
          sort: { column: "link.modName", cursorName: "mods.name", type: "text", order: sortOrder, id: "link.modId" },
          ...(search ? { count: "bounded" as const, smallSet: true } : { count: "exact" as const }),
          columns: (rows) => rows.select("link.modId"),
          completePage: (page) => withModRows(page, "page.modId").selectAll("mods"),
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
        columns: (rows: Catalogue) => rows.selectAll("mods"),
        toItem: toMod,
      };
      if (!modpackId) {
        // The catalogue: a filter's matches are read from its indexes, sorted and counted in one
        // statement while they are few; a larger set walks the sort index a bounded distance and
        // otherwise sorts the matches (listPage's `smallSet` and `sortWalk`).
        return listPage(db, input, {
          ...common,
          rows: filter(catalogue),
          count: "bounded",
          ...(filtered && { smallSet: true, sortWalk: { table: "mods" as const, from: catalogue, filter } }),
        });
      }
      // One modpack's mods are counted exactly, a search among them as the modpack's own list
      // counts it (exactly up to 1,000 matches, then estimated), like the catalogue. A search joins
      // the catalogue freely, so the planner finds the matches from the trigram index or from the
      // modpack's links, whichever is cheaper (see modpack-mods.ts); otherwise each link's row is
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
        ...(search ? { count: "bounded" as const, smallSet: true } : { count: "exact" as const }),
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
