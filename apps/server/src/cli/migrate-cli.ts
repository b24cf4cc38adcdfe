import { runOnDatabase } from "./run.js";

const template = new URL("../embedded-template.tar.gz", import.meta.url);

await runOnDatabase({ poolSize: 1, template }, async (_database, _config, migrated) => {
  process.stdout.write(migrated.length ? `Applied: ${migrated.join(", ")}\n` : "Database is up to date\n");
});
