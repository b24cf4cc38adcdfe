import { fileURLToPath } from "node:url";
import { type Config, ConfigError, envFiles, loadConfig, readEnvFiles } from "../config.js";
import { type DatabaseHandle, DatabaseInUseError, openDatabase } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";
import { recordPendingInitialRevisions } from "../db/modpack-revisions.js";

/**
 * Runs a command-line task on the migrated database of the configuration (`.env` files read
 * first): a bad setting or a database another process holds stops it with one line, no stack.
 * `template` is the embedded database's template beside the built server, given by the entry
 * point (shared code is bundled into chunks elsewhere in `dist/`).
 */
export async function runOnDatabase(
  options: { poolSize: number; template: URL },
  task: (database: DatabaseHandle, config: Config, migrated: string[]) => Promise<void>,
): Promise<void> {
  try {
    readEnvFiles(envFiles());
    const config = loadConfig();
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: options.poolSize,
      template: fileURLToPath(options.template),
    });
    try {
      const result = await migrateToLatest(database.db);
      await recordPendingInitialRevisions(database.db);
      const migrated =
        result.results?.filter((item) => item.status === "Success").map((item) => item.migrationName) ?? [];
      await task(database, config, migrated);
    } finally {
      await database.close();
    }
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof DatabaseInUseError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}
