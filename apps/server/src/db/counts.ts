import { CompiledQuery, type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "./database.js";
import type { Database } from "./schema.js";

/** A select from any of the service's tables and joins. */
// biome-ignore lint/suspicious/noExplicitAny: a select from any of the service's tables and joins
export type AnySelect = SelectQueryBuilder<Database, any, any>;

/**
 * An unfiltered list that grows with the catalogue counts its rows exactly up to this many (an
 * index-only count), and above it answers the planner's estimate (`totalExact: false`).
 */
export const EXACT_COUNT_LIMIT = 1_000;

/**
 * The planner's estimate of the rows a query matches: `explain` plans the query without running
 * it, from the tables' statistics (for a search, the share of the search text's histogram that
 * holds the words).
 */
export async function estimatedCount(db: Db, rows: AnySelect): Promise<number> {
  const { sql: text, parameters } = rows.select(sql.lit(1).as("one")).compile();
  return explainedRows(db, CompiledQuery.raw(`explain (format json) ${text}`, [...parameters]));
}

/** The rows the planner expects a statement to answer, from its `explain (format json)`. */
async function explainedRows(db: Db, explain: CompiledQuery): Promise<number> {
  const explained = await db.executeQuery<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(explain);
  return Math.round(Number(explained.rows[0]?.["QUERY PLAN"]?.[0]?.Plan?.["Plan Rows"] ?? 0));
}

/** Counts the rows of `rows` up to one past EXACT_COUNT_LIMIT: a count that stops there. */
export function countUpToLimit(db: Db, rows: AnySelect) {
  return db
    .selectFrom(
      rows
        .select(sql.lit(1).as("one"))
        .limit(EXACT_COUNT_LIMIT + 1)
        .as("matching"),
    )
    .select(sql<number>`count(*)::int`.as("count"));
}

/**
 * The total of a bounded list from the count that stopped at EXACT_COUNT_LIMIT + 1: that count,
 * exact, when it stopped short of the limit; above it the list's `estimate` (a row count Postgres's
 * statistics keep, read in the page's statement) when that is above the limit too, else the
 * planner's estimate of the query's rows. A row count at or below the limit the count has just
 * passed is stale: a table analysed while it was empty keeps 0, for good on the embedded database,
 * which runs no autovacuum; the planner's estimate follows the table's current size.
 */
export async function boundedTotal(
  db: Db,
  rows: AnySelect,
  counted: number,
  estimate?: number | null,
): Promise<{ total: number; exact: boolean }> {
  if (counted <= EXACT_COUNT_LIMIT) return { total: counted, exact: true };
  const known =
    typeof estimate === "number" && estimate > EXACT_COUNT_LIMIT ? estimate : await estimatedCount(db, rows);
  return { total: Math.max(EXACT_COUNT_LIMIT + 1, Math.round(known)), exact: false };
}

/** The number of rows a query matches, cheaply (see `boundedTotal`), in statements of its own. */
export async function boundedCount(db: Db, rows: AnySelect): Promise<{ total: number; exact: boolean }> {
  const [bounded] = await countUpToLimit(db, rows).execute();
  return boundedTotal(db, rows, Number(bounded?.count ?? 0));
}
