import { createHash } from "node:crypto";
import { badRequest, MAX_PAGE_DEPTH, type Paged, type Pagination } from "@modpack/contract";
import { CompiledQuery, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { LRUCache } from "lru-cache";
import type { Db } from "../db/database.js";
import { executeNamed, executeSlotted, type SlottedQuery, slotQuery } from "../db/reusable-query.js";
import type { Database } from "../db/schema.js";

/** `%` and `_` in user text match themselves in ILIKE patterns. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

function offsetOf(page: number, limit: number): number {
  return (page - 1) * limit;
}

/** Counts above this are the planner's estimate (`totalExact: false`), not an exact count. */
export const EXACT_COUNT_LIMIT = 1_000;

function pagination(
  page: number,
  limit: number,
  total: number,
  more: { totalExact?: boolean; nextCursor?: string | null } = {},
): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit), ...more };
}

/** 400 when `page × limit` reaches past the deepest row offsets may read; the cursor reads further. */
function checkPageDepth(page: number, limit: number, cursor: string | undefined): void {
  if (cursor === undefined && page * limit > MAX_PAGE_DEPTH) {
    throw badRequest(
      `page × limit may not exceed ${MAX_PAGE_DEPTH}: read further with the cursor parameter (pagination.nextCursor of the previous page)`,
    );
  }
}

/** Where a page ends: the sort key it was read in, the last row's sort value (as text) and id. */
interface Position {
  value: string;
  id: string;
}

/** Digests of recent filters (JSON), so a popular list's cursor key costs no hash. */
const filterDigests = new LRUCache<string, string>({ max: 1_000 });

/**
 * The key a cursor is made and checked under: the list's sort, and a digest of its filters, so a
 * cursor from another sort, filter or list is refused instead of answering an unrelated page.
 */
function cursorKey(sort: string, filters: string): string {
  let digest = filterDigests.get(filters);
  if (digest === undefined) {
    digest = createHash("sha256").update(filters).digest("base64url").slice(0, 16);
    filterDigests.set(filters, digest);
  }
  return `${sort}.${digest}`;
}

/** An opaque cursor: base64url JSON of the sort key, value and id. */
function encodeCursor(sortKey: string, position: Position): string {
  return Buffer.from(JSON.stringify([sortKey, position.value, position.id])).toString("base64url");
}

/** The position a cursor names, or 400 when it is malformed or was made for another sort or filter. */
function decodeCursor(cursor: string, sortKey: string): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    parsed[0] !== sortKey ||
    typeof parsed[1] !== "string" ||
    typeof parsed[2] !== "string" ||
    !/^[0-9a-f-]{36}$/i.test(parsed[2])
  ) {
    throw badRequest("Invalid cursor: pass pagination.nextCursor of a page read with the same sort and filters");
  }
  return { value: parsed[1], id: parsed[2] };
}

/**
 * Rows after a position in `(sort column, id)` order: `(column, id) > (value, id)` ascending,
 * `<` descending. The value is the column's text form cast back to its type, so timestamps keep
 * their microseconds.
 */
function afterPosition(
  column: string,
  idColumn: string,
  type: "text" | "timestamptz",
  order: "asc" | "desc",
  position: Position,
): RawBuilder<SqlBool> {
  const value = type === "text" ? sql`${position.value}::text` : sql`${position.value}::timestamptz`;
  const operator = sql.raw(order === "asc" ? ">" : "<");
  return sql<SqlBool>`(${sql.ref(column)}, ${sql.ref(idColumn)}) ${operator} (${value}, ${position.id}::uuid)`;
}

/** The text form of a sort column, selected beside each row to build the next cursor from. */
const sortText = (column: string) => sql<string>`${sql.ref(column)}::text`;

/** How long a set found larger than EXACT_COUNT_LIMIT keeps its estimate before it is counted again. */
const ESTIMATE_TTL_MS = 5_000;
const ESTIMATES_KEPT = 1_000;

/**
 * Sets recently found larger than EXACT_COUNT_LIMIT, by list and filters: their estimate
 * (already inexact) is answered again for a few seconds without a statement, so a popular list
 * (the public modpacks, the catalogue) costs one statement, its page.
 */
const largeSets = new WeakMap<Db, LRUCache<string, number>>();

/**
 * The number of rows a query matches, cheaply: exact up to EXACT_COUNT_LIMIT (a count that stops
 * there), above it the planner's estimate of the query's rows (at least the limit + 1), remembered
 * for ESTIMATE_TTL_MS.
 */
async function countMatches(
  db: Db,
  // biome-ignore lint/suspicious/noExplicitAny: a select from any of the service's tables
  matching: SelectQueryBuilder<Database, any, object>,
  /** Names the set: the list and its filters. */
  key: string,
  /** The bounded count goes as a named prepared statement. */
  prepared: boolean,
): Promise<{ total: number; exact: boolean }> {
  let known = largeSets.get(db);
  const remembered = known?.get(key);
  if (remembered !== undefined) return { total: remembered, exact: false };
  const rows = matching.select(sql.lit(1).as("one"));
  const compiled = rows.compile();
  const bounding = db
    .selectFrom(rows.limit(EXACT_COUNT_LIMIT + 1).as("matching"))
    .select(sql<number>`count(*)::int`.as("count"));
  const [bounded] = prepared ? await executeNamed(db, bounding) : await bounding.execute();
  const count = Number(bounded?.count ?? 0);
  if (count <= EXACT_COUNT_LIMIT) {
    known?.delete(key);
    return { total: count, exact: true };
  }
  const explained = await db.executeQuery<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const estimate = Number(explained.rows[0]?.["QUERY PLAN"]?.[0]?.Plan?.["Plan Rows"] ?? 0);
  const total = Math.max(EXACT_COUNT_LIMIT + 1, Math.round(estimate));
  if (!known) {
    known = new LRUCache<string, number>({ max: ESTIMATES_KEPT, ttl: ESTIMATE_TTL_MS });
    largeSets.set(db, known);
  }
  known.set(key, total);
  return { total, exact: false };
}

/**
 * The rows of `table` whose ids `ids` selects (as column `id`), each read by primary key, as a
 * derived table named like the table (so `mods.name` and `selectAll("mods")` read it as usual).
 * `offset 0` keeps the lateral a nested loop: Postgres otherwise reads the whole table into a hash
 * or merge join to find a few thousand of its rows.
 */
export function rowsByIds<Q>(
  db: Db,
  table: "mods" | "modpacks" | "users",
  // biome-ignore lint/suspicious/noExplicitAny: a select of ids from any of the service's tables
  ids: SelectQueryBuilder<Database, any, { id: string }>,
): Q {
  const rows = sql`(select t.* from (${ids}) as hit cross join lateral (select * from ${sql.table(table)} where id = hit.id offset 0) as t)`;
  // The derived table has exactly the table's columns under the table's name.
  return db.selectFrom(rows.as(table)) as unknown as Q;
}

/** What a list request asks for: a page (with a cursor it only labels the answer), its size, a cursor. */
export interface PageRequest {
  page: number;
  limit: number;
  cursor?: string | undefined;
}

/** A select from any of the service's tables and joins. */
// biome-ignore lint/suspicious/noExplicitAny: a select from any of the service's tables and joins
export type AnySelect = SelectQueryBuilder<Database, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the rows a list selects, from any tables
type RowsOf<Row> = SelectQueryBuilder<any, any, Row>;

interface ListCommon<Q extends AnySelect, Row, Item> {
  /** Names the list in its cursors, with the sort and `filters`: a cursor made for another answers 400. */
  list: string;
  /** The filters `matching` applies, as the request gave them. */
  filters: Record<string, unknown>;
  /** The list's rows, filtered once: the count and the page both read this query. */
  matching: Q;
  /**
   * The order: a column, its type (a cursor's value is cast back to it), the direction, and a unique
   * id column that breaks ties. `key` names the order in cursors when it is not the column (a copy
   * of the column read for speed keeps the cursors of the original valid).
   */
  sort: { column: string; key?: string; type: "text" | "timestamptz"; order: "asc" | "desc"; id: string };
  /**
   * How the total is counted. `estimate`: exactly up to EXACT_COUNT_LIMIT, the planner's estimate
   * above (`totalExact: false`), for sets that grow with the catalogue. `exact`: `count(*)`, for a
   * set bounded by its owner (one user's modpacks, one modpack's mods). `window`: `count(*) over ()`
   * in the page's own statement, for a small set read in one statement. The first two count before
   * the page is read, and an empty list reads no page.
   */
  count: "estimate" | "exact" | "window";
  /** The same rows, in a query cheaper to count (the links' index alone), for `exact`. */
  countFrom?: AnySelect;
  /**
   * A small match set (counted exactly, at most EXACT_COUNT_LIMIT rows) is read by primary key from
   * this table and sorted in memory, instead of walking the sort index and filtering every row.
   */
  byIds?: "mods" | "modpacks" | "users";
  /** False for a list without cursors: no `cursor`, no `nextCursor` or `totalExact` in the answer. */
  cursor?: boolean;
  /**
   * The list's statements go as named prepared statements (see `executeNamed`): only for filters
   * whose best plan is the same for every value. Not for a free-text search or a tag (a few rows to
   * most of the catalogue), nor for one modpack's rows (one mod to thousands): a generic plan is
   * chosen without the modpack's size, so a large modpack's pages read better when planned for the
   * modpack each time.
   */
  prepared?: boolean;
  /**
   * With `prepared`: names a list whose `matching`, `select` and `complete` build the same SQL with
   * the same parameters on every call (no value of the request's in them). Its page statement is
   * then built and compiled once per sort and kind of page, and each call sends that SQL with its
   * own limit, offset and position, skipping the query builder and the compiler.
   */
  shape?: string;
  toItem: (row: Row) => Item;
}

type ListSpec<Q extends AnySelect, Row, Item> = ListCommon<Q, Row, Item> &
  (
    | {
        /** The columns of a page row. */
        select: (rows: Q) => RowsOf<Row>;
        complete?: undefined;
      }
    | {
        select: (rows: Q) => AnySelect;
        /**
         * Completes the rows of the page once it is cut (`page`, the selected columns), so what
         * `matching` does not need is read for the page's rows only, never for rows an offset skips.
         */
        complete: (page: AnySelect) => RowsOf<Row>;
      }
  );

/** Columns the page statement adds to each row: the cursor's sort value and id, the count of `window`. */
interface PageKeys {
  sortValue: string;
  cursorId: string;
  pageSort?: unknown;
  fullCount?: number | string;
}

/** Where a page statement reads: its limit (one row past the page), its offset, its cursor's position. */
interface PageAt {
  limit: number;
  offset: number;
  position: Position | undefined;
}

/** Values no request has, built into a page statement where its limit, offset and position go. */
const SLOTS = [-1_000_001, -1_000_002, "\u0000position value", "\u0000position id"] as const;

/** Page statements of lists with a `shape`, compiled once per shape, sort and kind of page. */
const compiledPages = new WeakMap<Db, LRUCache<string, SlottedQuery<unknown>>>();

/**
 * Runs the page statement `build` makes, compiled once for `key` (see ListCommon.shape) with the
 * slots in place of its limit, offset and position, then sent each time with this page's values at
 * the slots' parameters, as a named prepared statement.
 */
async function runCompiledPage(db: Db, key: string, build: (at: PageAt) => AnySelect, at: PageAt) {
  let compiled = compiledPages.get(db);
  if (!compiled) {
    compiled = new LRUCache<string, SlottedQuery<unknown>>({ max: 200 });
    compiledPages.set(db, compiled);
  }
  let entry = compiled.get(key);
  if (!entry) {
    const [limit, offset, value, id] = SLOTS;
    const query = build({ limit, offset, position: at.position && { value, id } }).compile();
    entry = slotQuery(query, SLOTS);
    const [limitAt, offsetAt, , idAt] = entry.positions;
    if (!limitAt?.length || !offsetAt?.length || (at.position && !idAt?.length)) {
      throw new Error("a page statement does not take its limit, offset or position as parameters");
    }
    compiled.set(key, entry);
  }
  return executeSlotted(db, entry, [at.limit, at.offset, at.position?.value, at.position?.id]);
}

/**
 * One page of a list and its pagination, the one way every list is paged: `matching` filters once;
 * the total is counted the way `count` says; the page is read at the cursor's position (keyset:
 * rows after the last one the previous page answered, in `(sort column, id)` order, stable while
 * rows are added) or at `(page - 1) × limit` (`page × limit` bounded, see checkPageDepth), and one
 * row past the page tells whether there is a next one (`nextCursor`).
 */
export async function listPage<Q extends AnySelect, Row, Item>(
  db: Db,
  request: PageRequest,
  spec: ListSpec<Q, Row, Item>,
): Promise<Paged<Item>> {
  const { page, limit } = request;
  const { column, type, order, id } = spec.sort;
  const keyset = spec.cursor !== false;
  const cursor = keyset ? request.cursor : undefined;
  if (keyset) checkPageDepth(page, limit, cursor);
  const filters = JSON.stringify(spec.filters);
  const sortKey = cursorKey(`${spec.list}.${spec.sort.key ?? column}.${order}`, filters);
  const position = cursor === undefined ? undefined : decodeCursor(cursor, sortKey);
  const run = <R>(query: SelectQueryBuilder<Database, never, R>) =>
    spec.prepared ? executeNamed(db, query) : query.execute();
  const countExactly = async () => {
    const [counted] = await run((spec.countFrom ?? spec.matching).select(sql<number>`count(*)::int`.as("count")));
    return Number(counted?.count ?? 0);
  };
  const envelope = (total: number, exact: boolean, next: PageKeys | undefined) =>
    pagination(
      page,
      limit,
      total,
      keyset
        ? {
            totalExact: exact,
            nextCursor: next ? encodeCursor(sortKey, { value: next.sortValue, id: next.cursorId }) : null,
          }
        : {},
    );

  // A window count over rows after a position would count only those: past a cursor it counts apart.
  const windowed = spec.count === "window" && !position;
  let total = 0;
  let exact = true;
  if (spec.count === "estimate") {
    ({ total, exact } = await countMatches(db, spec.matching, `${spec.list}\u0000${filters}`, spec.prepared === true));
  } else if (!windowed) total = await countExactly();
  if (!windowed && total === 0) return { data: [], pagination: envelope(0, true, undefined) };

  const byIds = spec.byIds && !windowed && exact && total <= EXACT_COUNT_LIMIT ? spec.byIds : undefined;
  const pageQuery = (at: PageAt): AnySelect => {
    let rows = byIds ? rowsByIds<Q>(db, byIds, spec.matching.select(sql.ref(`${byIds}.id`).as("id"))) : spec.matching;
    if (at.position) rows = rows.where(afterPosition(column, id, type, order, at.position)) as Q;
    let pageRows: AnySelect = spec
      .select(rows)
      .select([sortText(column).as("sortValue"), sql.ref<string>(id).as("cursorId")])
      .$if(windowed, (query) => query.select(sql<number>`count(*) over ()`.as("fullCount")))
      .orderBy(sql.ref(column), order)
      .orderBy(sql.ref(id), order)
      .limit(at.limit)
      .offset(at.offset);
    if (spec.complete) {
      const cut = db.selectFrom(pageRows.select(sql.ref(column).as("pageSort")).as("page")).selectAll("page");
      pageRows = spec.complete(cut).orderBy(sql.ref("page.pageSort"), order).orderBy(sql.ref("page.cursorId"), order);
    }
    return pageRows;
  };
  const at: PageAt = { limit: limit + 1, offset: position ? 0 : offsetOf(page, limit), position };
  const found = (
    spec.prepared && spec.shape !== undefined
      ? await runCompiledPage(
          db,
          [spec.shape, column, order, windowed, byIds, position !== undefined].join("\u0000"),
          pageQuery,
          at,
        )
      : await run(pageQuery(at))
  ) as (Row & PageKeys)[];
  if (windowed) {
    total = found[0] ? Number(found[0].fullCount) : page > 1 ? await countExactly() : 0;
  }
  return {
    // Each `toItem` picks its fields by name, so the page keys on a row go no further.
    data: found.slice(0, limit).map((row) => spec.toItem(row)),
    pagination: envelope(total, exact, found.length > limit ? found[limit - 1] : undefined),
  };
}
