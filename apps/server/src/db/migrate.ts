import type { Kysely } from "kysely";
import { type MigrationResultSet, Migrator } from "kysely/migration";
import { migrations } from "./migrations/index.js";

/** Applies every numbered migration not yet applied, in order, and throws on the first failure. */
export async function migrateToLatest<T>(db: Kysely<T>): Promise<MigrationResultSet> {
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
