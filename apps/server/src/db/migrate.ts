import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Kysely, sql } from "kysely";
import { FileMigrationProvider, type MigrationResultSet, Migrator } from "kysely/migration";

const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** Applies every numbered migration not yet applied, in order, and throws on the first failure. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder }),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((item) => item.status === "Error");
    const cause = result.error instanceof Error ? result.error : new Error(String(result.error));
    throw new Error(`Migration ${failed?.migrationName ?? "(unknown)"} failed: ${cause.message}`, { cause });
  }
  return result;
}

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
