import type { Compilable, CompiledQuery } from "kysely";
import type { Db } from "./database.js";
import { nameStatement } from "./prepared-statements.js";

/**
 * A read of fixed shape whose SQL is built and compiled once per database: `build` is called with
 * `placeholders`, and each call sends that SQL with its arguments at the placeholders' parameter
 * positions, so a hot read skips the query builder and the compiler (its result goes through the
 * database's plugins as any query's does), and Postgres parses and plans it once per connection (a
 * named prepared statement, see prepared-statements.ts). Each placeholder must be a value no other
 * parameter of the query has.
 */
export function reusableQuery<R>(
  placeholders: string[],
  build: (db: Db, ...args: string[]) => Compilable<R>,
): (db: Db, ...args: string[]) => Promise<R[]> {
  const compiled = new WeakMap<Db, SlottedQuery<R>>();
  const compile = (db: Db) => {
    const slotted = slotQuery(build(db, ...placeholders).compile(), placeholders);
    if (slotted.positions.some((found) => found.length === 0)) {
      throw new Error("a placeholder is not a parameter of its query");
    }
    compiled.set(db, slotted);
    return slotted;
  };
  return (db, ...args) => executeSlotted(db, compiled.get(db) ?? compile(db), args);
}

/** A compiled statement of fixed shape and the parameter positions where each call's values go. */
export interface SlottedQuery<R> {
  query: CompiledQuery<R>;
  /** For each slot, the indexes of the parameters holding its placeholder (none when unused). */
  positions: number[][];
}

/**
 * Marks where a statement compiled with `placeholders` takes its values (each placeholder a value no
 * other parameter has), and names it as a prepared statement (see prepared-statements.ts).
 */
export function slotQuery<R>(query: CompiledQuery<R>, placeholders: readonly unknown[]): SlottedQuery<R> {
  nameStatement(query.sql);
  const positions = placeholders.map((placeholder) =>
    query.parameters.flatMap((parameter, index) => (parameter === placeholder ? [index] : [])),
  );
  return { query, positions };
}

/** Sends a slotted statement with `values` at its slots' parameters. */
export async function executeSlotted<R>(
  db: Db,
  { query, positions }: SlottedQuery<R>,
  values: readonly unknown[],
): Promise<R[]> {
  const parameters = query.parameters.slice();
  positions.forEach((found, slot) => {
    for (const index of found) parameters[index] = values[slot];
  });
  return (await db.executeQuery<R>({ ...query, parameters })).rows;
}

/**
 * Runs a query as a named prepared statement (see prepared-statements.ts): for a statement of a
 * bounded set of shapes whose plan does not depend on its values (no free-text search, no filter
 * whose selectivity varies from a few rows to most of a table).
 */
export async function executeNamed<R>(db: Db, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  nameStatement(compiled.sql);
  return (await db.executeQuery(compiled)).rows;
}
