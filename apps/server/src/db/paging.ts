import { badRequest, MAX_PAGE_DEPTH, type Paged } from "@modpack/contract";
import { CompiledQuery, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import {
  type AnySelect,
  boundedCount,
  boundedTotal,
  countUpToLimit,
  EXACT_COUNT_LIMIT,
  estimatedCount,
} from "./counts.js";
import { decodeCursor, digest, encodeCursor, type Position, SORT_TIME_FORMAT, type SortType } from "./cursors.js";
import type { Db } from "./database.js";
import type { Database } from "./schema.js";

// biome-ignore lint/suspicious/noExplicitAny: the rows a list selects, from any tables
type RowsOf<Row> = SelectQueryBuilder<any, any, Row>;

/**
 * The rows of `table` whose ids `ids` selects (as column `id`), each read by primary key, as a
 * derived table named like the table (so `mods.name` and `selectAll("mods")` read it as usual).
 * `offset 0` keeps the lateral a nested loop: Postgres otherwise reads the whole table into a hash
 * or merge join to find a few thousand of its rows. `carried` columns of `ids` (snake_case) come
 * along beside the table's own.
 */
export function rowsByIds<Q>(
  db: Db,
  table: "mods" | "modpacks" | "users",
  // biome-ignore lint/suspicious/noExplicitAny: a select of ids from any of the service's tables
  ids: SelectQueryBuilder<Database, any, { id: string }>,
  carried: string[] = [],
): Q {
  const extra = sql.join(
    carried.map((column) => sql`, ${sql.ref(`hit.${column}`)}`),
    sql``,
  );
  const rows = sql`(select t.*${extra} from (${ids}) as hit cross join lateral (select * from ${sql.table(table)} where id = hit.id offset 0) as t)`;
  // The derived table has exactly the table's columns under the table's name.
  return db.selectFrom(rows.as(table)) as unknown as Q;
}

/**
 * How many rows of the sort order a filtered page walks, at least, before it reads every match
 * instead (see `sortWalk`): enough to find a page of a word in one row in fifty, few enough that a
 * walk that finds none costs no more than sorting about as many matches. A page further down walks
 * proportionally further.
 */
const WALK_ROWS = EXACT_COUNT_LIMIT;
const WALK_ROWS_PER_ROW = 20;
/** How far a walk for `wanted` rows goes. */
const walkLength = (wanted: number) => Math.max(WALK_ROWS, WALK_ROWS_PER_ROW * wanted);

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
   * How the total is counted when the page alone cannot say it (a first page shorter than the
   * limit says it: then nothing more is sent). `bounded`: exactly up to EXACT_COUNT_LIMIT, the
   * planner's estimate above (`totalExact: false`), for an unfiltered set that grows with the
   * catalogue. `matched`: for a search or filter over such a set, only as far as the page reads,
   * as search engines count: exact when the page's own statement read every match, else the
   * planner's estimate; counting every match of a common word would read all of them for a page of
   * twenty. `exact`: `count(*)`, for a set bounded by its owner (one user's modpacks, one modpack's
   * mods); it goes in the page's statement, where counting a set that small costs less than a round
   * trip of its own. `withPage`: `count(*) over ()` in the page's own statement, for a small set
   * read in one statement.
   */
  count: "bounded" | "matched" | "exact" | "withPage";
  /** The same rows, in a query cheaper to count (the links' index alone), for `exact`. */
  countRows?: AnySelect;
  /**
   * The page's statement as fixed text, for a list read so often that building and compiling its
   * statement on every request costs the service more than Postgres takes to run it. It replaces
   * the statement `rows`, `columns` and `sortWalk` would build; those still count a page past the
   * end, and give the planner's estimate of a page with no row to carry it. Its rows carry what
   * the built statement's would, each column named as the answer reads it (`"sortValue"`): it is
   * read without the CamelCasePlugin, whose mapping of every key of every row a fixed statement has
   * no need of. The page's columns, `sortValue`, `cursorId`, and for `bounded` the `boundedCount`
   * and `estimate`, for `exact` the `exactCount`, for a `matched` list's walk (`walkPages`) the
   * `matchCount` and, where the page did not read every match, the planner's `estimate` of them.
   */
  fixedPage?: (at: FixedPageAt) => CompiledQuery;
  /**
   * For `matched`, the matches of a list whose filter no index gives in the sort's order: its
   * unfiltered rows (`from`, named `table`) and its filter. The page walks the sort index through a
   * bounded number of rows (WALK_ROWS_PER_ROW per row wanted, at least WALK_ROWS), which finds a
   * page of matches spread through the sort order; when they are fewer or cluster further down, it
   * reads every match's id and sort value from the filter's own indexes, counts and sorts those
   * instead, so no page walks far through rows that do not match, and a word common in the order
   * never reads all its matches. Both in one statement: the second is only run when the first fell
   * short.
   *
   * `modpacks`: the modpacks' rows, read by primary key once the page is cut (the public search
   * writes this walk out instead, `walkPages`; the modpacks holding a mod keep it). `link`: one
   * modpack's links (`modpack_mods as link`), whose page columns the walk carries and
   * `completePage` completes with their mods (a list without `completePage` cannot walk links).
   */
  sortWalk?: { table: "modpacks" | "link"; from: Q; filter: (rows: Q) => Q };
  /**
   * For `matched`, a set no index gives in the sort's order (a modpack's mods by a catalogue
   * column): the page's statement sorts every match's id and sort value, so it counts them in
   * passing, and reads the page's rows by id. Without this or `sortWalk`, the page is the planner's
   * plan of `rows` in the sort's order (a modpack's links walked along their own index).
   */
  everyMatch?: boolean;
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
        sortWalk?: { table: "modpacks" };
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

/**
 * Where a `fixedPage` statement reads: `rows` rows (one past the page) from `offset`, after
 * `position`. A walk (`sortWalk`) looks for `wanted` matches (the offset, the page and one past it)
 * among the first `walk` rows of the sort order.
 */
export interface FixedPageAt {
  position: Position | undefined;
  rows: number;
  offset: number;
  wanted: number;
  walk: number;
}

/** The sorts a list of the catalogue or of public modpacks offers (`sortBy`). */
const FIXED_SORTS = ["createdAt", "updatedAt", "name"] as const;
export type FixedSortBy = (typeof FIXED_SORTS)[number];

/** A catalogue list's sort (`sortBy`) as a fixed statement names it: the snake_case column and its type. */
function fixedSort(sortBy: FixedSortBy): { column: string; type: SortType } {
  if (sortBy === "name") return { column: "name", type: "text" };
  return { column: sortBy === "createdAt" ? "created_at" : "updated_at", type: "timestamptz" };
}

/** `order by` a sort column, then an id, both in `order`. */
export const orderSql = (sort: string, id: string, order: "asc" | "desc") =>
  `order by ${sort} ${order}, ${id} ${order}`;

/**
 * The rows after a cursor's position in `order`: `(row.column, row.id)` past its sort value and id,
 * the parameters `value` and `id` (as `$n`), cast back to the column's type.
 */
export const afterSql = (
  row: string,
  sort: { column: string; type: SortType },
  order: "asc" | "desc",
  value: string,
  id: string,
) => `(${row}.${sort.column}, ${row}.id) ${order === "asc" ? ">" : "<"} (${value}::${sort.type}, ${id}::uuid)`;

/** One thing per sort a list offers and per order: its statement, or what its statement is written from. */
type PerSortAndOrder<S extends string, T> = Record<S, Record<"asc" | "desc", T>>;

/**
 * Writes what a list's statement needs for each of its sorts and both orders, once, when its module
 * loads: a request picks it instead of writing the same text again, and a text kept this way is one
 * string, so `withPreparedReads` finds the name it gave that text without hashing the text anew.
 */
export function perSortAndOrder<S extends string, T>(
  sorts: readonly S[],
  write: (sortBy: S, order: "asc" | "desc") => T,
): PerSortAndOrder<S, T> {
  return Object.fromEntries(
    sorts.map((sortBy) => [sortBy, { asc: write(sortBy, "asc"), desc: write(sortBy, "desc") }]),
  ) as PerSortAndOrder<S, T>;
}

/** A fixed page's columns: the row's own (`columns`), then its sort value and id for the next cursor. */
const pageColumns = (columns: (row: string) => string, row: string, sort: { column: string; type: SortType }) =>
  `${columns(row)}, ${sortValueSql(`${row}.${sort.column}`, sort.type)} as "sortValue", ${row}.id as "cursorId"`;

/**
 * A page of an unfiltered list that grows with the catalogue (`bounded`), as one fixed statement
 * (`fixedPage`): the sort's index walked to the page, a count that stops one past
 * EXACT_COUNT_LIMIT, and the row count Postgres's statistics keep of `statistics` (a relation
 * holding exactly the list's rows) for the total above it. `$1` the rows to read, `$2` the offset,
 * `$3` and `$4` a cursor's sort value and id. Every sort's and order's two texts, with and without
 * a cursor, are written once, here (`perSortAndOrder`); the answered function picks one a page.
 */
export function boundedPages(list: {
  table: "mods" | "modpacks";
  /** The list's rows, as a condition on `table`. */
  where: string;
  /** The page's columns of the row named `row`. */
  columns: (row: string) => string;
  /** The relation whose statistics count the list's rows, as an oid expression. */
  statistics: string;
}): (sortBy: FixedSortBy, order: "asc" | "desc", at: FixedPageAt) => CompiledQuery {
  const { table, where } = list;
  const pages = perSortAndOrder(FIXED_SORTS, (sortBy, order) => {
    const sort = fixedSort(sortBy);
    const text = (after: string) => `select ${pageColumns(list.columns, table, sort)},
    (select count(*)::int from (select 1 from ${table} where ${where} limit ${EXACT_COUNT_LIMIT + 1}) as matching) as "boundedCount",
    (select reltuples from pg_class where oid = ${list.statistics}) as estimate
  from ${table} where ${where} ${after}
  ${orderSql(`${table}.${sort.column}`, `${table}.id`, order)} limit $1 offset $2`;
    return { first: text(""), later: text(`and ${afterSql(table, sort, order, "$3", "$4")}`) };
  });
  return (sortBy, order, { position, rows, offset }) => {
    const texts = pages[sortBy][order];
    return position
      ? CompiledQuery.raw(texts.later, [rows, offset, position.value, position.id])
      : CompiledQuery.raw(texts.first, [rows, offset]);
  };
}

/** How a fixed statement names the parameter holding the nth value (from 0) of a condition it carries. */
export type FixedParameter = (index: number) => string;

/** A search's or filter's condition on the row named `row`, each of its values named by `parameter`. */
export type FixedFilter = (row: string, parameter: FixedParameter) => { text: string; values: unknown[] };

/**
 * Our own SQL text as a string literal (quotes doubled; a backslash is itself under
 * `standard_conforming_strings`, on since Postgres 9.1). A request's values never go into it: they
 * stay parameters.
 */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * A filtered list's walk (`sortWalk`) written out as one fixed statement, for a `matched` list's
 * `fixedPage`: the same walk, fallback and count as `readWalk`, without a query built per request.
 * It walks `table`'s sort index through the first `walk` of the list's rows (`where`, from the
 * position on), keeps the first `wanted` that pass the filter; when fewer do, every match's id and
 * sort value from the filter's own indexes instead, counted and sorted. The page's rows are read by
 * primary key as `t` (`columns`). Where the page cannot count the matches (the walk found enough, or
 * it starts at a cursor), it carries the planner's estimate of them, `estimate`, from `planned_rows`
 * (migration 0019): the filter's values handed to it as text, cast back by the filter's own text.
 * Parameters: `$1` the rows to read, `$2` the offset, `$3` the matches wanted, `$4` the walk's
 * length, `$5` and `$6` a cursor's sort value and id, then the filter's. Each sort's columns are
 * written once; the text around a request's filter is written per request, since the filter's shape
 * varies with its terms.
 */
export function walkPages(list: {
  table: "mods" | "modpacks";
  /** The list's rows, as a condition on the row named `row`. */
  where: (row: string) => string;
  /** The page's columns of the row named `row`. */
  columns: (row: string) => string;
}): (sortBy: FixedSortBy, order: "asc" | "desc", filter: FixedFilter, at: FixedPageAt) => CompiledQuery {
  const { table, where } = list;
  const columns = Object.fromEntries(
    FIXED_SORTS.map((sortBy) => [sortBy, pageColumns(list.columns, "t", fixedSort(sortBy))]),
  ) as Record<FixedSortBy, string>;
  return (sortBy, order, filterOf, { position, rows, offset, wanted, walk: walkRows }) => {
    const sort = fixedSort(sortBy);
    const { column } = sort;
    const sorted = (by: string, id: string) => orderSql(by, id, order);
    const after = position ? `and ${afterSql("r", sort, order, "$5", "$6")}` : "";
    const first = position ? 7 : 5;
    const filter = filterOf("r", (index) => `$${first + index}`);
    const matches = `select 1 from ${table} as r where ${where("r")} and ${filterOf("r", (index) => `$1[${index + 1}]`).text}`;
    const asText = filter.values.map((_, index) => `$${first + index}::text`).join(", ");
    const text = `with along as materialized (
    select r.id, r.${column} as page_sort from (
      select r.* from ${table} as r where ${where("r")} ${after} ${sorted(`r.${column}`, "r.id")} limit $4
    ) as r where ${filter.text}
    ${sorted(`r.${column}`, "r.id")} limit $3
  ), picked as (
    select id, page_sort, null::bigint as match_count from along where (select count(*) from along) = $3
    union all
    select * from (
      select id, page_sort, count(*) over () as match_count from (
        select r.id, r.${column} as page_sort from ${table} as r
        where ${where("r")} ${after} and ${filter.text} offset 0
      ) as match ${sorted("page_sort", "id")} limit $3
    ) as every_match where (select count(*) from along) < $3
  )
  select ${columns[sortBy]}, picked.match_count as "matchCount",
    (select case when ${position ? "true" : "(select count(*) from along) = $3"}
      then planned_rows(${literal(matches)}, array[${asText}]::text[]) end) as estimate
  from picked cross join lateral (select * from ${table} where id = picked.id offset 0) as t
  ${sorted("picked.page_sort", "picked.id")} limit $1 offset $2`;
    const cursor = position ? [position.value, position.id] : [];
    return CompiledQuery.raw(text, [rows, offset, wanted, walkRows, ...cursor, ...filter.values]);
  };
}

/** The text of a row's sort value (`sortValue` of a page statement): a timestamp in UTC to the microsecond. */
export function sortValueSql(column: string, type: SortType): string {
  return type === "text" ? `${column}::text` : `to_char(${column} at time zone 'UTC', '${SORT_TIME_FORMAT}')`;
}

/** Columns the page statement adds to each row: the cursor's sort value and id, the counts. */
interface PageKeys {
  sortValue: string;
  cursorId: string;
  fullCount?: number | string;
  /** Every match of a `matched` list, when the page's statement read them all. */
  matchCount?: number | string | null;
  boundedCount?: number;
  exactCount?: number;
  /** `bounded`: the row count of the list's statistics; a `matched` walk: the planner's estimate of its matches. */
  estimate?: number | null;
}

/**
 * One page of a list and its pagination, the one way every list is paged: `rows` filters once; the
 * page is read at the cursor's position (keyset: rows after the last one the previous page
 * answered, in `(sort column, id)` order, stable while rows are added) or at `(page - 1) × limit`
 * (`page × limit` bounded by MAX_PAGE_DEPTH), and one row past the page tells whether there is a
 * next one (`nextCursor`). The total is counted the way `count` says, only when the page has not
 * already told it.
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
  const offset = position ? 0 : (page - 1) * limit;
  /** The whole count of an `exact` list: in the page's statement, or alone for a page past the end. */
  const exactCount = () => (spec.countRows ?? spec.rows).select(sql<number>`count(*)::int`.as("count"));
  const countExactly = async () => {
    const [counted] = await exactCount().execute();
    return Number(counted?.count ?? 0);
  };
  const answer = (found: (Row & PageKeys)[], total: number, exact: boolean): Paged<Item> => {
    const next = found.length > limit ? found[limit - 1] : undefined;
    return {
      // Each `toItem` picks its fields by name, so the page keys on a row go no further.
      data: found.slice(0, limit).map((row) => spec.toItem(row)),
      pagination: {
        page,
        limit,
        total,
        totalPages: Math.ceil(total / limit),
        ...(keyset && {
          totalExact: exact,
          nextCursor: next ? encodeCursor(cursorKey, { value: next.sortValue, id: next.cursorId }) : null,
        }),
      },
    };
  };

  // `(column, id) > (value, id)` ascending, `<` descending; the value cast back to the column's type.
  const after = (sortColumn: string, idColumn: string) =>
    sql<SqlBool>`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)}) ${sql.raw(order === "asc" ? ">" : "<")} (${position?.value}::${sql.raw(type)}, ${position?.id}::uuid)`;
  // The sort value as text for the next cursor; a timestamp in UTC with its microseconds. Built only
  // by a page that builds its statement (a fixed page writes its own).
  const sortValue = () =>
    type === "text"
      ? sql<string>`${sql.ref(column)}::text`
      : sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', ${sql.lit(SORT_TIME_FORMAT)})`;
  const keyed = (rows: Q) =>
    spec.columns(rows).select([sortValue().as("sortValue"), sql.ref<string>(id).as("cursorId")]);
  /** The page cut from `cut` (rows with `pageSort` and `cursorId`), its rows completed. */
  const completed = (cut: AnySelect): Promise<(Row & PageKeys)[]> => {
    const pageRows = spec.completePage
      ? spec
          .completePage(db.selectFrom(cut.as("page")).selectAll("page"))
          .orderBy(sql.ref("page.pageSort"), order)
          .orderBy(sql.ref("page.cursorId"), order)
      : cut;
    return pageRows.execute() as Promise<(Row & PageKeys)[]>;
  };
  /**
   * The page as the planner finds it best: along the sort order, or all matches sorted. `count`
   * adds the total's count to each row: `window`, a count of the rows read; `bounded`, the count
   * that stops past EXACT_COUNT_LIMIT, and `exact`, the whole count, each run once (a subquery of
   * no row's values) in the page's statement, so a page and its count are one round trip.
   */
  const readPage = (count?: "window" | "bounded" | "exact") =>
    completed(
      keyed(position ? (spec.rows.where(after(column, id)) as Q) : spec.rows)
        .$if(count === "window", (query) => query.select(sql<number>`count(*) over ()`.as("fullCount")))
        .$if(count === "exact", (query) => query.select(() => exactCount().as("exactCount")))
        .$if(count === "bounded", (query) =>
          query.select((eb) =>
            eb.selectFrom(countUpToLimit(db, spec.rows).as("counted")).select("counted.count").as("boundedCount"),
          ),
        )
        .select(sql.ref(column).as("pageSort"))
        .orderBy(sql.ref(column), order)
        .orderBy(sql.ref(id), order)
        .limit(limit + 1)
        .offset(offset),
    );
  /** What the page alone says of the total: a page with no row past it, that is not past the end. */
  const totalOfPage = (found: unknown[]) =>
    !position && found.length <= limit && (found.length > 0 || offset === 0) ? offset + found.length : undefined;

  if (spec.count === "withPage") {
    // A window count over rows after a position would count only those: past a cursor it counts apart.
    const found = await readPage(position ? undefined : "window");
    const first = found[0];
    const total = first && !position ? Number(first.fullCount) : (totalOfPage(found) ?? (await countExactly()));
    return answer(found, total, true);
  }

  if (spec.count === "matched") {
    const found = await (spec.fixedPage
      ? readFixed(spec.fixedPage)
      : spec.sortWalk
        ? readWalk(spec.sortWalk)
        : spec.everyMatch
          ? readEveryMatch()
          : readPage());
    const known = totalOfPage(found);
    if (known !== undefined) return answer(found, known, true);
    const counted = found[0]?.matchCount;
    // A walk's count past a position is of the matches after it only; every match's is of all.
    if (counted !== undefined && counted !== null && (!position || spec.everyMatch)) {
      return answer(found, Number(counted), true);
    }
    // A page past the end has no row to carry a count, and its reader needs the real one to page back.
    if (found.length === 0 && !position) return answer(found, await countExactly(), true);
    // The page did not read every match: the planner's estimate, never fewer than the rows the
    // page proves there are. A fixed walk's page carries it; a page with no row cannot.
    const estimate = found[0]?.estimate ?? (await estimatedCount(db, spec.rows));
    const least = (position ? (page - 1) * limit : offset) + found.length;
    return answer(found, Math.max(estimate, least), false);
  }

  if (spec.count === "bounded") {
    const found = spec.fixedPage ? await readFixed(spec.fixedPage) : await readPage("bounded");
    const known = totalOfPage(found);
    if (known !== undefined) return answer(found, known, true);
    // A page past the end has no row to carry the count.
    const counted = found[0]?.boundedCount;
    const { total, exact } =
      counted === undefined
        ? await boundedCount(db, spec.rows)
        : await boundedTotal(db, spec.rows, Number(counted), found[0]?.estimate);
    return answer(found, total, exact);
  }
  const found = spec.fixedPage ? await readFixed(spec.fixedPage) : await readPage("exact");
  const known = totalOfPage(found);
  if (known !== undefined) return answer(found, known, true);
  // A page past the end has no row to carry the count.
  const counted = found[0]?.exactCount;
  return answer(found, counted === undefined ? await countExactly() : Number(counted), true);

  /** The page by the list's own fixed statement (`fixedPage`). */
  async function readFixed(fixedPage: (at: FixedPageAt) => CompiledQuery): Promise<(Row & PageKeys)[]> {
    const wanted = offset + limit + 1;
    const { rows } = await db
      .withoutPlugins()
      .executeQuery(fixedPage({ position, rows: limit + 1, offset, wanted, walk: walkLength(wanted) }));
    return rows as (Row & PageKeys)[];
  }

  /**
   * Every match's sort value and id, counted by a window over them all; the page is cut after the
   * count, at the position, and only then are its own rows read, by id: a match set of a third of
   * a modpack never sorts its whole rows.
   */
  function readEveryMatch() {
    const matched = db
      .selectFrom(spec.rows.select([sql.ref(column).as("pageSort"), sql.ref(id).as("cursorId")]).as("matched"))
      .selectAll("matched")
      .select(sql<number>`count(*) over ()`.as("matchCount"));
    const cut = db
      .selectFrom(matched.as("cut"))
      .selectAll("cut")
      .$if(position !== undefined, (query) => query.where(after("cut.pageSort", "cut.cursorId")))
      .orderBy(sql.ref("cut.pageSort"), order)
      .orderBy(sql.ref("cut.cursorId"), order)
      .limit(limit + 1)
      .offset(offset);
    const pageRows = spec.rows.innerJoin(cut.as("cut"), (join) => join.onRef("cut.cursorId", "=", id)) as Q;
    return completed(
      keyed(pageRows)
        .select([sql.ref("cut.pageSort").as("pageSort"), sql.ref("cut.matchCount").as("matchCount")])
        .orderBy(sql.ref("cut.pageSort"), order)
        .orderBy(sql.ref("cut.cursorId"), order),
    );
  }

  /**
   * A filtered page walked along the sort order (see `sortWalk`): the matches among the first rows
   * of the sort order, from the position on; when they are fewer than the rows wanted, every
   * match's id and sort value instead, counted and sorted. Then the page's rows: the catalogue's by
   * primary key, a modpack's links completed with their mods.
   */
  function readWalk(walk: NonNullable<ListCommon<Q, Row, Item>["sortWalk"]>) {
    const wanted = offset + limit + 1;
    const from = position ? (walk.from.where(after(column, id)) as Q) : walk.from;
    const links = walk.table === "link";
    // What the walk keeps of a match: a catalogue row's id (its row is read once the page is cut),
    // or a link's page columns, narrow already.
    const idColumn = links ? "cursorId" : "id";
    const kept = (rows: Q) =>
      (links ? keyed(rows) : rows.select(sql.ref(id).as("id"))).select(sql.ref(column).as("pageSort"));
    const walked = db.selectFrom(
      from
        .selectAll(walk.table)
        .orderBy(sql.ref(column), order)
        .orderBy(sql.ref(id), order)
        .limit(walkLength(wanted))
        .as(walk.table),
    ) as unknown as Q;
    const along = kept(walk.filter(walked))
      .select(sql<null>`null::bigint`.as("matchCount"))
      .orderBy(sql.ref(column), order)
      .orderBy(sql.ref(id), order)
      .limit(wanted);
    // `offset 0` keeps the sort order's index out of the second: the filter's indexes find the matches.
    const everyMatch = db
      .selectFrom(kept(walk.filter(from)).offset(0).as("match"))
      .selectAll("match")
      .select(sql<number>`count(*) over ()`.as("matchCount"))
      .orderBy(sql.ref("match.pageSort"), order)
      .orderBy(sql.ref(`match.${idColumn}`), order)
      .limit(wanted);
    const enough = sql<SqlBool>`(select count(*) from along) = ${wanted}`;
    const picked = sql<{ id: string }>`(
      with along as materialized (${along})
      select * from along where ${enough}
      union all
      select * from (${everyMatch}) as every_match where not ${enough}
    )`;
    if (links) {
      return completed(
        db
          .selectFrom(picked.as("picked"))
          .selectAll("picked")
          .orderBy(sql.ref("picked.pageSort"), order)
          .orderBy(sql.ref("picked.cursorId"), order)
          .limit(limit + 1)
          .offset(offset),
      );
    }
    const rows = rowsByIds<Q>(db, walk.table as "modpacks", db.selectFrom(picked.as("picked")).selectAll("picked"), [
      "match_count",
    ]);
    return completed(
      keyed(rows)
        .select([sql.ref(column).as("pageSort"), sql.ref(`${walk.table}.matchCount`).as("matchCount")])
        .orderBy(sql.ref(column), order)
        .orderBy(sql.ref(id), order)
        .limit(limit + 1)
        .offset(offset),
    );
  }
}
