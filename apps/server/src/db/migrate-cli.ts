import { loadConfig } from "../config.js";
import { openDatabase } from "./database.js";
import { migrateToLatest } from "./migrate.js";

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
try {
  const result = await migrateToLatest(database.db);
  const applied = result.results?.filter((item) => item.status === "Success").map((item) => item.migrationName) ?? [];
  process.stdout.write(applied.length ? `Applied: ${applied.join(", ")}\n` : "Database is up to date\n");
} finally {
  await database.close();
}
