/**
 * Writes the embedded database template: a gzipped tarball of a new embedded database after
 * start-up (initdb, every migration, the job queue's schema, queues and schedules). `pnpm build`
 * makes it beside the built server; a new DATA_DIR then starts as a copy of it.
 *   node dist/cli/template-cli.js <out.tar.gz>
 */
import { writeFile } from "node:fs/promises";
import { loadConfig } from "../config.js";
import { startRuntime } from "../runtime.js";

const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: template-cli <out.tar.gz>\n");
  process.exit(2);
}
const config = loadConfig({ DATA_DIR: "memory://", LOG_LEVEL: "silent", NODE_ENV: "development" });
const runtime = await startRuntime(config, { role: "api" });
const { database } = runtime;
if (database.kind !== "pglite") throw new Error("expected the embedded database");
await runtime.jobs.stop({ graceful: true });
await database.pglite.query("checkpoint");
const tarball = await database.pglite.dumpDataDir("gzip");
await writeFile(out, Buffer.from(await tarball.arrayBuffer()));
await runtime.close();
