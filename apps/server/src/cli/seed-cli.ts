import { runOnDatabase } from "./run.js";
import { seedDemo } from "./seed.js";

// On the embedded database this needs the server stopped: a second process on DATA_DIR is refused.
const template = new URL("../embedded-template.tar.gz", import.meta.url);

await runOnDatabase({ poolSize: 2, template }, async (database, config) => {
  const result = await seedDemo(database.db);
  const where = database.kind === "pglite" ? `the embedded database in ${config.dataDir}` : "Postgres";
  process.stdout.write(
    `Seeded ${result.mods} mods, ${result.users} users and ${result.modpacks} new public modpacks into ${where}.\n`,
  );
});
