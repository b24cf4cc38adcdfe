import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./config.js";
import { type ProcessRole, startRuntime } from "./runtime.js";

const startedAt = performance.now();

function readRole(): ProcessRole {
  const { values } = parseArgs({ options: { role: { type: "string", default: "all" } }, strict: true });
  const role = values.role;
  if (role !== "all" && role !== "api" && role !== "worker") {
    throw new ConfigError(`Invalid --role "${role}": use all, api or worker`);
  }
  return role;
}

async function main(): Promise<void> {
  const role = readRole();
  const config = loadConfig();
  const runtime = await startRuntime(config, { role });
  const { logger } = runtime;
  if (runtime.app) {
    await runtime.app.listen({ port: config.port, host: config.host });
  }
  logger.info(
    {
      role,
      database: runtime.database.kind === "pglite" ? `embedded (${config.dataDir})` : "postgres",
      startupMs: Math.round(performance.now() - startedAt),
    },
    runtime.app ? `Modpack Collection Service listening on ${config.publicUrl}` : "Modpack worker running",
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const force = setTimeout(() => {
      logger.error("shutdown took longer than 30 s; exiting");
      process.exit(1);
    }, 30_000);
    force.unref();
    runtime.close().then(
      () => {
        logger.info("stopped");
        process.exitCode = 0;
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exitCode = 1;
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
