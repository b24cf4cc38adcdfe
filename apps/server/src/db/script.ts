import { type Kysely, sql } from "kysely";

/** Splits a migration script into statements: at each `;` that ends a line outside a `$$` body. */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current = "";
  let inBody = false;
  for (const line of script.split("\n")) {
    current += `${line}\n`;
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      statements.push(current.trim().replace(/;$/, ""));
      current = "";
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

/**
 * Runs a migration script statement by statement: the embedded database runs one statement per
 * query, and a migration runs inside the migrator's transaction either way.
 */
export async function executeScript<T>(db: Kysely<T>, script: string): Promise<void> {
  for (const statement of splitStatements(script)) {
    await sql.raw(statement).execute(db);
  }
}

/**
 * `create index concurrently` for a migration that runs outside a transaction, first dropping what
 * an interrupted build left (an invalid index); an index already built is left alone.
 */
export async function buildIndexConcurrently<T>(db: Kysely<T>, name: string, definition: string): Promise<void> {
  const left = await sql<{ valid: boolean }>`
    select indisvalid as valid from pg_index where indexrelid = to_regclass(${name})
  `.execute(db);
  if (left.rows[0]?.valid) return;
  if (left.rows[0]) await sql.raw(`drop index concurrently ${name}`).execute(db);
  await sql.raw(`create index concurrently ${name} on ${definition}`).execute(db);
}
