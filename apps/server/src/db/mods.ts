import { isDeepStrictEqual } from "node:util";
import { badGateway, type Mod, unprocessable, workshopIdOf } from "@modpack/contract";
import { type CompiledQuery, type RawBuilder, type SqlBool, sql } from "kysely";
import { buildModIdsOf } from "../modpack/pack-mods.js";
import { type WorkshopClient, WorkshopError, type WorkshopItem, type WorkshopItemResult } from "../workshop/client.js";
import { PARSER_VERSION } from "../workshop/description.js";
import type { AnySelect } from "./counts.js";
import type { Db } from "./database.js";
import { inLockOrder } from "./lock-order.js";
import { keepWholeSelections, recordCatalogueRevisions } from "./modpack-revisions.js";
import { boundedPages, type FixedPageAt, type FixedParameter, type FixedSortBy, walkPages } from "./paging.js";
import type { ModRow } from "./schema.js";
import { searchTextCondition, searchTextSql } from "./search-text.js";
import { apiTime, isoTime, type ReadTime } from "./times.js";

/*
 * The catalogue's rows as the services and jobs that add, find and list mods share them: the one
 * upsert of workshop items, the resolution of a reference to a mod, and the search and tag conditions.
 */

export const HTTP_URL = /^https?:\/\//i;
const WORKSHOP_UNREACHABLE = "The Steam Workshop could not be reached; try again";

/**
 * The catalogue columns a mod's answer reads (`toMod`): a list selects these, not the row's search
 * text, version or parser version, which would double what each row of a page carries.
 */
export const modColumns = [
  "mods.id",
  "mods.name",
  "mods.workshopId",
  "mods.platformModIds",
  "mods.modIdsB41",
  "mods.modIdsB42",
  "mods.mapFolders",
  "mods.requiredWorkshopIds",
  "mods.description",
  "mods.avatarUrl",
  "mods.tags",
  "mods.isActive",
  "mods.timeUpdated",
  "mods.createdAt",
  "mods.updatedAt",
] as const;

export type ModAnswerRow = Omit<ModAnswerColumns, "timeUpdated" | "createdAt" | "updatedAt"> & {
  timeUpdated: ReadTime | null;
  createdAt: ReadTime;
  updatedAt: ReadTime;
};

type ModAnswerColumns = Pick<
  ModRow,
  | "id"
  | "name"
  | "workshopId"
  | "platformModIds"
  | "modIdsB41"
  | "modIdsB42"
  | "mapFolders"
  | "requiredWorkshopIds"
  | "description"
  | "avatarUrl"
  | "tags"
  | "isActive"
  | "timeUpdated"
  | "createdAt"
  | "updatedAt"
>;

export function toMod(row: ModAnswerRow): Mod {
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
    timeUpdated: row.timeUpdated === null ? null : apiTime(row.timeUpdated),
    createdAt: apiTime(row.createdAt),
    updatedAt: apiTime(row.updatedAt),
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
export async function fetchItem(workshop: WorkshopClient, workshopId: string): Promise<WorkshopItemResult> {
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
 * `modSearchCondition` and `modTagsCondition` together as the text of a fixed statement, on the mod
 * row named `row`, each value in the parameter `parameter` names.
 */
function catalogueFilterSql(row: string, search: string | undefined, tags: string[], parameter: FixedParameter) {
  const text: string[] = [];
  const values: unknown[] = [];
  /** The parameter of the value pushed last. */
  const last = () => parameter(values.length - 1);
  if (search) {
    const first = values.length;
    const terms = searchTextSql(`${row}.search_text`, search, (index) => parameter(first + index));
    values.push(...terms.values, search);
    const inGameId = last();
    const workshopId = workshopIdOf(search);
    if (workshopId !== null) values.push(workshopId);
    const exactWorkshopId = workshopId === null ? "" : ` or ${row}.workshop_id = ${last()}`;
    text.push(`(${terms.text} or ${row}.platform_mod_ids @> array[${inGameId}]::text[]${exactWorkshopId})`);
  }
  if (tags.length > 0) {
    values.push(tags);
    text.push(`${row}.tags && ${last()}::text[]`);
  }
  return { text: text.length === 0 ? "true" : text.join(" and "), values };
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const MOD_TIMES = new Set(["time_updated", "created_at", "updated_at"]);

/**
 * `modColumns` of the mod row named `row`, as the text of a fixed statement: each under the name the
 * answer reads (`workshopId`), since a fixed page is read without the CamelCasePlugin (`listPage`),
 * its times formatted (`isoTime`).
 */
export const modColumnsSql = (row: string) =>
  modColumns
    .map((name) => name.slice("mods.".length))
    .map((name) => {
      const column = snakeCase(name);
      return `${MOD_TIMES.has(column) ? isoTime(`${row}.${column}`) : `${row}.${column}`} as "${name}"`;
    })
    .join(", ");

const catalogueSearches = walkPages({ table: "mods", where: () => "true", columns: modColumnsSql });

/**
 * A page of a search or a tag filter of the catalogue, one fixed statement per sort, order and
 * shape of the filter (`walkPages`): the sort index walked a bounded distance, each mod tested,
 * else every match from the trigram and tag indexes.
 */
export function catalogueSearchPage(
  sortBy: FixedSortBy,
  order: "asc" | "desc",
  filter: { search: string | undefined; tags: string[] },
  at: FixedPageAt,
): CompiledQuery {
  return catalogueSearches(
    sortBy,
    order,
    (row, parameter) => catalogueFilterSql(row, filter.search, filter.tags, parameter),
    at,
  );
}

/**
 * A page of the whole catalogue, one fixed statement per sort and order (`boundedPages`): the
 * table's row count stands for the total above the exact count.
 */
export const cataloguePage = boundedPages({
  table: "mods",
  where: "true",
  columns: modColumnsSql,
  statistics: "'mods'::regclass",
});

/**
 * A modpack's links (`modpack_mods as link`) whose mod matches `search` (`modSearchCondition`),
 * joined to their mods: the one way a search inside a modpack finds its matches.
 */
export function linksMatching(links: AnySelect, search: string): AnySelect {
  return links.innerJoin("mods", "mods.id", "link.modId").where(modSearchCondition(search));
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
