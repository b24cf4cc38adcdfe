import { writeFile } from "node:fs/promises";
import { loadConfig } from "./config.js";
import { startRuntime } from "./runtime.js";

/**
 * Writes the embedded database template to `out`: a gzipped tarball of a new embedded database
 * after start-up (initdb, every migration, the job queue's schema, queues and schedules). `pnpm
 * build` writes one beside the built server (`cli/template-cli.ts`), from which a new DATA_DIR, or
 * one in memory, starts; a test run writes one the same way for its embedded databases.
 */
export async function writeEmbeddedTemplate(out: string): Promise<void> {
  const config = loadConfig({ DATA_DIR: "memory://", LOG_LEVEL: "silent", NODE_ENV: "development" });
  const runtime = await startRuntime(config, { role: "api" });
  try {
    const { database } = runtime;
    if (database.kind !== "pglite") throw new Error("expected the embedded database");
    await runtime.jobs.stop({ graceful: true });
    await database.pglite.query("checkpoint");
    const tarball = await database.pglite.dumpDataDir("gzip");
    await writeFile(out, Buffer.from(await tarball.arrayBuffer()));
  } catch (error) {
    await runtime.close().catch(() => {});
    throw error;
  }
  await runtime.close();
}
