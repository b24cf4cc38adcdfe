import { type Kysely, sql } from "kysely";
import { type MigrationResultSet, Migrator } from "kysely/migration";
import { migrations } from "./migrations/index.js";

/**
 * Applies every numbered migration not yet applied, in order, and throws on the first failure. When
 * one query shows every migration applied (the usual start), the migrator and its lock are skipped.
 */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<MigrationResultSet> {
  if (await allApplied(db)) return { results: [] };
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((item) => item.status === "Error");
    const cause = result.error instanceof Error ? result.error : new Error(String(result.error));
    throw new Error(`Migration ${failed?.migrationName ?? "(unknown)"} failed: ${cause.message}`, { cause });
  }
  return result;
}

/** Migrations are never removed once they land, so every name present means nothing to do. */
async function allApplied<T>(db: Kysely<T>): Promise<boolean> {
  const exists = await sql<{ table: string | null }>`select to_regclass('kysely_migration')::text as table`.execute(db);
  if (!exists.rows[0]?.table) return false;
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const names = new Set(applied.rows.map((row) => row.name));
  return Object.keys(migrations).every((name) => names.has(name));
}
