import { createHash } from "node:crypto";
import { badRequest, MAX_PAGE_DEPTH, type Pagination } from "@modpack/contract";
import { CompiledQuery, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Database } from "../db/schema.js";

/** `%` and `_` in user text match themselves in ILIKE patterns. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

export function offsetOf(page: number, limit: number): number {
  return (page - 1) * limit;
}

/** Counts above this are the planner's estimate (`totalExact: false`), not an exact count. */
export const EXACT_COUNT_LIMIT = 1_000;

export function pagination(
  page: number,
  limit: number,
  total: number,
  more: { totalExact?: boolean; nextCursor?: string | null } = {},
): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit), ...more };
}

/** 400 when `page × limit` reaches past the deepest row offsets may read; the cursor reads further. */
export function checkPageDepth(page: number, limit: number, cursor: string | undefined): void {
  if (cursor === undefined && page * limit > MAX_PAGE_DEPTH) {
    throw badRequest(
      `page × limit may not exceed ${MAX_PAGE_DEPTH}: read further with the cursor parameter (pagination.nextCursor of the previous page)`,
    );
  }
}

/** Where a page ends: the sort key it was read in, the last row's sort value (as text) and id. */
export interface Position {
  value: string;
  id: string;
}

/**
 * The key a cursor is made and checked under: the list's sort, and a digest of its filters, so a
 * cursor from another sort, filter or list is refused instead of answering an unrelated page.
 */
export function cursorKey(sort: string, filters: Record<string, unknown>): string {
  return `${sort}.${createHash("sha256").update(JSON.stringify(filters)).digest("base64url").slice(0, 16)}`;
}

/** An opaque cursor: base64url JSON of the sort key, value and id. */
export function encodeCursor(sortKey: string, position: Position): string {
  return Buffer.from(JSON.stringify([sortKey, position.value, position.id])).toString("base64url");
}

/** The position a cursor names, or 400 when it is malformed or was made for another sort or filter. */
export function decodeCursor(cursor: string, sortKey: string): Position {
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
export function afterPosition(
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
export const sortText = (column: string) => sql<string>`${sql.ref(column)}::text`;

/**
 * The number of rows a query matches, cheaply: exact up to EXACT_COUNT_LIMIT (a count that stops
 * there), above it the planner's estimate of the query's rows (at least the limit + 1).
 */
export async function countMatches(
  db: Db,
  // biome-ignore lint/suspicious/noExplicitAny: a select from any of the service's tables
  matching: SelectQueryBuilder<Database, any, object>,
): Promise<{ total: number; exact: boolean }> {
  const bounded = await db
    .selectFrom(
      matching
        .select(sql.lit(1).as("one"))
        .limit(EXACT_COUNT_LIMIT + 1)
        .as("matching"),
    )
    .select(sql<number>`count(*)::int`.as("count"))
    .executeTakeFirstOrThrow();
  const count = Number(bounded.count);
  if (count <= EXACT_COUNT_LIMIT) return { total: count, exact: true };
  const compiled = matching.select(sql.lit(1).as("one")).compile();
  const explained = await db.executeQuery<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  );
  const estimate = Number(explained.rows[0]?.["QUERY PLAN"]?.[0]?.Plan?.["Plan Rows"] ?? 0);
  return { total: Math.max(EXACT_COUNT_LIMIT + 1, Math.round(estimate)), exact: false };
}

/**
 * The rows of `table` whose ids `ids` selects (as column `id`), each read by primary key, as a
 * derived table named like the table (so `mods.name` and `selectAll("mods")` read it as usual).
 * `offset 0` keeps the lateral a nested loop: Postgres otherwise reads the whole table into a hash
 * or merge join to find a few thousand of its rows.
 */
export function rowsByIds<Q>(
  db: Db,
  table: "mods" | "modpacks",
  // biome-ignore lint/suspicious/noExplicitAny: a select of ids from any of the service's tables
  ids: SelectQueryBuilder<Database, any, { id: string }>,
): Q {
  const rows = sql`(select t.* from (${ids}) as hit cross join lateral (select * from ${sql.table(table)} where id = hit.id offset 0) as t)`;
  // The derived table has exactly the table's columns under the table's name.
  return db.selectFrom(rows.as(table)) as unknown as Q;
}
