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
  // One migration at a time, each in its own transaction with its record in kysely_migration,
  // except those that must run outside one (`transactional: false`, e.g. `create index
  // concurrently`): they run statement by statement on the migrator's connection.
  const results: NonNullable<MigrationResultSet["results"]>[number][] = [];
  for (;;) {
    const pending = (await migrator.getMigrations()).find((migration) => migration.executedAt === undefined);
    if (!pending) return { results };
    const transactional = migrations[pending.name]?.transactional !== false;
    const result = await migrator.migrateUp({ disableTransactions: !transactional });
    results.push(...(result.results ?? []));
    if (result.error) {
      const failed = result.results?.find((item) => item.status === "Error");
      const cause = result.error instanceof Error ? result.error : new Error(String(result.error));
      throw new Error(`Migration ${failed?.migrationName ?? "(unknown)"} failed: ${cause.message}`, { cause });
    }
    if (!result.results?.length) return { results };
  }
}

/** Migrations are never removed once they land, so every name present means nothing to do. */
async function allApplied<T>(db: Kysely<T>): Promise<boolean> {
  const exists = await sql<{ table: string | null }>`select to_regclass('kysely_migration')::text as table`.execute(db);
  if (!exists.rows[0]?.table) return false;
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const names = new Set(applied.rows.map((row) => row.name));
  return Object.keys(migrations).every((name) => names.has(name));
}
