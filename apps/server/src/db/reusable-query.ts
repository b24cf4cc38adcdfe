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
  const compiled = new WeakMap<Db, { query: CompiledQuery<R>; positions: number[][] }>();
  const compile = (db: Db) => {
    const query = build(db, ...placeholders).compile();
    nameStatement(query.sql);
    const positions = placeholders.map((placeholder) =>
      query.parameters.flatMap((parameter, index) => (parameter === placeholder ? [index] : [])),
    );
    if (positions.some((found) => found.length === 0)) throw new Error("a placeholder is not a parameter of its query");
    const entry = { query, positions };
    compiled.set(db, entry);
    return entry;
  };
  return async (db, ...args) => {
    const { query, positions } = compiled.get(db) ?? compile(db);
    const parameters = query.parameters.slice();
    positions.forEach((found, i) => {
      for (const index of found) parameters[index] = args[i];
    });
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
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
