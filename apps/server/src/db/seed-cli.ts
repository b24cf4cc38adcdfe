import { loadConfig } from "../config.js";
import { openDatabase } from "./database.js";
import { migrateToLatest } from "./migrate.js";
import { seedDemo } from "./seed.js";

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
try {
  await migrateToLatest(database.db);
  const result = await seedDemo(database.db);
  const where = database.kind === "pglite" ? `the embedded database in ${config.dataDir}` : "Postgres";
  process.stdout.write(
    `Seeded ${result.mods} mods, ${result.users} users and ${result.modpacks} new public modpacks into ${where}.\n`,
  );
} finally {
  await database.close();
}
