import { createHash } from "node:crypto";
import { badRequest, MAX_PAGE_DEPTH, type Paged } from "@modpack/contract";
import { CompiledQuery, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Database } from "../db/schema.js";

/** `%` and `_` in user text match themselves in ILIKE patterns. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The fewest characters a term needs for the trigram index to find it. */
const TRIGRAM = 3;

/**
 * The terms of a search: its words (what whitespace separates), each once, in any order. A word
 * shorter than a trigram is too unspecific alone and no index can find it: it stays with the word
 * before it, as typed (`mod 1`), or the word after it when it comes first.
 */
export function searchTerms(search: string): string[] {
  const words = search.split(/\s+/u).filter((word) => word.length > 0);
  const terms: string[] = [];
  let pending = "";
  for (const word of words) {
    const short = [...word].length < TRIGRAM;
    if (short && terms.length > 0) terms[terms.length - 1] += ` ${word}`;
    else if (short) pending = pending ? `${pending} ${word}` : word;
    else {
      terms.push(pending ? `${pending} ${word}` : word);
      pending = "";
    }
  }
  if (pending) terms.push(pending);
  return [...new Set(terms)];
}

/**
 * Every term of `search` (see `searchTerms`) is somewhere in a row's `search_text` (migration 0012:
 * name, description and, for mods, the workshop id, lower-cased and without accents), in any
 * order. The terms are normalised the same way, by the same function, once per statement (an
 * immutable function of a constant), and matched as substrings with `like`, which the trigram
 * index answers. A search of short words alone is only a filter (`strpos`: no index can help).
 */
export function searchTextCondition(column: "mods.searchText" | "modpacks.searchText", search: string) {
  const terms = searchTerms(search);
  if (terms.length === 0) return sql<SqlBool>`true`;
  return sql<SqlBool>`(${sql.join(
    terms.map((term) =>
      [...term].length >= TRIGRAM
        ? sql`${sql.ref(column)} like '%' || search_normalize(${likePattern(term).slice(1, -1)}) || '%'`
        : sql`strpos(${sql.ref(column)}, search_normalize(${term})) > 0`,
    ),
    sql` and `,
  )})`;
}

/** Counts above this are the planner's estimate (`totalExact: false`), not an exact count. */
const EXACT_COUNT_LIMIT = 1_000;

/** A select from any of the service's tables and joins. */
// biome-ignore lint/suspicious/noExplicitAny: a select from any of the service's tables and joins
export type AnySelect = SelectQueryBuilder<Database, any, any>;
// biome-ignore lint/suspicious/noExplicitAny: the rows a list selects, from any tables
type RowsOf<Row> = SelectQueryBuilder<any, any, Row>;

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

/** Where a page ends: the last row's sort value (as text) and id. */
interface Position {
  value: string;
  id: string;
}

type SortType = "text" | "timestamptz";

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 16);

/**
 * An opaque cursor: base64url JSON of the list's cursor key (the list, its sort and a digest of its
 * filters), the position, and a check over them, so a cursor edited by hand is told apart from one
 * this service made.
 */
function encodeCursor(cursorKey: string, { value, id }: Position): string {
  return Buffer.from(JSON.stringify([cursorKey, value, id, digest([cursorKey, value, id])])).toString("base64url");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A sort value as `sortValue` writes it, one Postgres reads back as the column's type. */
function isSortValue(value: string, type: SortType): boolean {
  if (type === "text") return !value.includes("\u0000");
  // `2026-11-22T21:06:47.713123Z`: the date part is a real day when a Date writes it back the same.
  const milliseconds = `${value.slice(0, 23)}Z`;
  const time = Date.parse(milliseconds);
  return (
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(value) &&
    !Number.isNaN(time) &&
    new Date(time).toISOString() === milliseconds
  );
}

/**
 * The position a cursor names, checked before any of it reaches a statement: 400 when it is not
 * one this service made for this list, sort and filters, or was edited since.
 */
function decodeCursor(cursor: string, cursorKey: string, type: SortType): Position {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    fields = undefined;
  }
  const [key, value, id, check] =
    Array.isArray(fields) && fields.length === 4 && fields.every((field) => typeof field === "string")
      ? (fields as string[])
      : [];
  if (
    key !== cursorKey ||
    value === undefined ||
    id === undefined ||
    check !== digest([key, value, id]) ||
    !isSortValue(value, type) ||
    !UUID.test(id)
  ) {
    throw badRequest("Invalid cursor: pass pagination.nextCursor of a page read with the same sort and filters");
  }
  return { value, id };
}

/**
 * The number of rows a query matches, cheaply: exact up to EXACT_COUNT_LIMIT (a count that stops
 * there), above it the planner's estimate of the query's rows (at least the limit + 1).
 */
async function boundedCount(db: Db, rows: AnySelect): Promise<{ total: number; exact: boolean }> {
  const matching = rows.select(sql.lit(1).as("one"));
  const [bounded] = await db
    .selectFrom(matching.limit(EXACT_COUNT_LIMIT + 1).as("matching"))
    .select(sql<number>`count(*)::int`.as("count"))
    .execute();
  const count = Number(bounded?.count ?? 0);
  if (count <= EXACT_COUNT_LIMIT) return { total: count, exact: true };
  const { sql: text, parameters } = matching.compile();
  const explained = await db.executeQuery<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
    CompiledQuery.raw(`explain (format json) ${text}`, [...parameters]),
  );
  const estimate = Number(explained.rows[0]?.["QUERY PLAN"]?.[0]?.Plan?.["Plan Rows"] ?? 0);
  return { total: Math.max(EXACT_COUNT_LIMIT + 1, Math.round(estimate)), exact: false };
}

/** What a list request asks for: a page (with a cursor it only labels the answer), its size, a cursor. */
export interface PageRequest {
  page: number;
  limit: number;
  cursor?: string | undefined;
}

interface ListCommon<Q extends AnySelect, Row, Item> {
  /** Names the list in its cursors, with the sort and `filters`: a cursor made for another answers 400. */
  list: string;
  /** The filters `rows` applies, as the request gave them. */
  filters: Record<string, unknown>;
  /** The list's rows, filtered once: the count and the page both read this query. */
  rows: Q;
  /**
   * The order: a column, its type, the direction, and a unique id column that breaks ties.
   * `cursorName` names the order in cursors when it is not the column (a copy of the column read
   * for speed keeps the cursors of the original valid).
   */
  sort: { column: string; cursorName?: string; type: SortType; order: "asc" | "desc"; id: string };
  /**
   * How the total is counted. `bounded`: exactly up to EXACT_COUNT_LIMIT, the planner's estimate
   * above (`totalExact: false`), for sets that grow with the catalogue. `exact`: `count(*)`, for a
   * set bounded by its owner (one user's modpacks, one modpack's mods). `withPage`:
   * `count(*) over ()` in the page's own statement, for a small set read in one statement. The
   * first two count before the page is read, and an empty list reads no page.
   */
  count: "bounded" | "exact" | "withPage";
  /** The same rows, in a query cheaper to count (the links' index alone), for `exact`. */
  countRows?: AnySelect;
  /**
   * A small match set (counted exactly, at most EXACT_COUNT_LIMIT rows) is read by primary key from
   * this table and sorted in memory, instead of walking the sort index and filtering every row.
   */
  smallSetById?: "mods" | "modpacks" | "users";
  /** False for a list without cursors: no `cursor`, no `nextCursor` or `totalExact` in the answer. */
  cursors?: boolean;
  toItem: (row: Row) => Item;
}

type ListSpec<Q extends AnySelect, Row, Item> = ListCommon<Q, Row, Item> &
  (
    | {
        /** The columns of a page row. */
        columns: (rows: Q) => RowsOf<Row>;
        completePage?: undefined;
      }
    | {
        columns: (rows: Q) => AnySelect;
        /**
         * Completes the rows of the page once it is cut (`page`, the selected columns), so what
         * `rows` does not need is read for the page's rows only, never for rows an offset skips.
         */
        completePage: (page: AnySelect) => RowsOf<Row>;
      }
  );

/** Columns the page statement adds to each row: the cursor's sort value and id, the count of `withPage`. */
interface PageKeys {
  sortValue: string;
  cursorId: string;
  fullCount?: number | string;
}

/**
 * One page of a list and its pagination, the one way every list is paged: `rows` filters once; the
 * total is counted the way `count` says; the page is read at the cursor's position (keyset: rows
 * after the last one the previous page answered, in `(sort column, id)` order, stable while rows
 * are added) or at `(page - 1) × limit` (`page × limit` bounded by MAX_PAGE_DEPTH), and one row
 * past the page tells whether there is a next one (`nextCursor`).
 */
export async function listPage<Q extends AnySelect, Row, Item>(
  db: Db,
  request: PageRequest,
  spec: ListSpec<Q, Row, Item>,
): Promise<Paged<Item>> {
  const { page, limit } = request;
  const { column, type, order, id } = spec.sort;
  const keyset = spec.cursors !== false;
  const cursor = keyset ? request.cursor : undefined;
  if (keyset && cursor === undefined && page * limit > MAX_PAGE_DEPTH) {
    throw badRequest(
      `page × limit may not exceed ${MAX_PAGE_DEPTH}: read further with the cursor parameter (pagination.nextCursor of the previous page)`,
    );
  }
  const cursorKey = `${spec.list}.${spec.sort.cursorName ?? column}.${order}.${digest(spec.filters)}`;
  const position = cursor === undefined ? undefined : decodeCursor(cursor, cursorKey, type);
  const countExactly = async () => {
    const [counted] = await (spec.countRows ?? spec.rows).select(sql<number>`count(*)::int`.as("count")).execute();
    return Number(counted?.count ?? 0);
  };
  const pagination = (total: number, exact: boolean, next: PageKeys | undefined) => ({
    page,
    limit,
    total,
    totalPages: Math.ceil(total / limit),
    ...(keyset && {
      totalExact: exact,
      nextCursor: next ? encodeCursor(cursorKey, { value: next.sortValue, id: next.cursorId }) : null,
    }),
  });

  // A window count over rows after a position would count only those: past a cursor it counts apart.
  const withPage = spec.count === "withPage" && !position;
  let total = 0;
  let exact = true;
  if (spec.count === "bounded") ({ total, exact } = await boundedCount(db, spec.rows));
  else if (!withPage) total = await countExactly();
  if (!withPage && total === 0) return { data: [], pagination: pagination(0, true, undefined) };

  const byId = spec.smallSetById && !withPage && exact && total <= EXACT_COUNT_LIMIT ? spec.smallSetById : undefined;
  let rows = byId ? rowsByIds<Q>(db, byId, spec.rows.select(sql.ref(`${byId}.id`).as("id"))) : spec.rows;
  if (position) {
    // `(column, id) > (value, id)` ascending, `<` descending; the value cast back to the column's type.
    const after = sql<SqlBool>`(${sql.ref(column)}, ${sql.ref(id)}) ${sql.raw(order === "asc" ? ">" : "<")} (${position.value}::${sql.raw(type)}, ${position.id}::uuid)`;
    rows = rows.where(after) as Q;
  }
  // The sort value as text for the next cursor; a timestamp in UTC with its microseconds.
  const sortValue =
    type === "text"
      ? sql<string>`${sql.ref(column)}::text`
      : sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  let pageRows: AnySelect = spec
    .columns(rows)
    .select([sortValue.as("sortValue"), sql.ref<string>(id).as("cursorId")])
    .$if(withPage, (query) => query.select(sql<number>`count(*) over ()`.as("fullCount")))
    .orderBy(sql.ref(column), order)
    .orderBy(sql.ref(id), order)
    .limit(limit + 1)
    .offset(position ? 0 : (page - 1) * limit);
  if (spec.completePage) {
    const cut = db.selectFrom(pageRows.select(sql.ref(column).as("pageSort")).as("page")).selectAll("page");
    pageRows = spec.completePage(cut).orderBy(sql.ref("page.pageSort"), order).orderBy(sql.ref("page.cursorId"), order);
  }
  const found = (await pageRows.execute()) as (Row & PageKeys)[];
  if (withPage) total = found[0] ? Number(found[0].fullCount) : page > 1 ? await countExactly() : 0;
  return {
    // Each `toItem` picks its fields by name, so the page keys on a row go no further.
    data: found.slice(0, limit).map((row) => spec.toItem(row)),
    pagination: pagination(total, exact, found.length > limit ? found[limit - 1] : undefined),
  };
}
