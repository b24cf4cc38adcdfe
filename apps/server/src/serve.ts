import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Config, ConfigError, envFiles, loadConfig, readEnvFiles } from "./config.js";
import { DatabaseInUseError } from "./db/database.js";
import { type ProcessRole, startRuntime } from "./runtime.js";

const startedAt = performance.now();

/** A start-up failure the person starting the service can fix: one line, no stack. */
class StartError extends Error {
  override name = "StartError";
}

function readRole(): ProcessRole {
  const { values } = parseArgs({ options: { role: { type: "string", default: "all" } }, strict: true });
  const role = values.role;
  if (role !== "all" && role !== "api" && role !== "worker") {
    throw new ConfigError(`Invalid --role "${role}": use all, api or worker`);
  }
  return role;
}

function describeDatabase(config: Config): string {
  if (!config.databaseUrl) {
    return config.dataDir.startsWith("memory://")
      ? "embedded (PGlite), in memory: nothing is kept after the process ends"
      : `embedded (PGlite), files in ${path.resolve(config.dataDir)}`;
  }
  const url = new URL(config.databaseUrl);
  return `Postgres at ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
}

/** The lines a person reads once the service is up, outside production. */
function banner(config: Config, role: ProcessRole, seconds: string, files: string[]): string {
  const base = config.publicUrl;
  const signIn = config.oauth.provider
    ? `${base}/auth/idp (${config.oauth.provider})`
    : `${base}/auth/idp (development identity provider: type any name and email)`;
  const rows: [string, string][] = [
    ["API", base],
    ["Docs", `${base}/docs`],
    ["Sign in", signIn],
    ["Database", describeDatabase(config)],
  ];
  if (role !== "all") rows.push(["Role", role]);
  if (files.length) rows.push(["Settings", files.join(", ")]);
  return [
    "",
    `Modpack Collection Service is ready (${config.env}, started in ${seconds} s)`,
    ...rows.map(([name, value]) => `  ${name.padEnd(9)} ${value}`),
    "Press Ctrl-C to stop.",
    "",
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const role = readRole();
  const files = readEnvFiles(envFiles());
  const config = loadConfig();
  const template = fileURLToPath(new URL("./embedded-template.tar.gz", import.meta.url));
  const runtime = await startRuntime(config, { role, template });
  const { logger } = runtime;
  if (runtime.app) {
    try {
      await runtime.app.listen({ port: config.port, host: config.host });
    } catch (error) {
      await runtime.close().catch(() => {});
      if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
        throw new StartError(
          `Port ${config.port} on ${config.host} is already in use (is the service already running?): stop that process or set PORT`,
        );
      }
      throw error;
    }
  }
  const startupMs = Math.round(performance.now() - startedAt);
  logger.info(
    { role, database: runtime.database.kind === "pglite" ? `embedded (${config.dataDir})` : "postgres", startupMs },
    runtime.app ? `Modpack Collection Service listening on ${config.publicUrl}` : "Modpack worker running",
  );
  if (!config.isProduction && runtime.app) {
    process.stdout.write(banner(config, role, (startupMs / 1000).toFixed(1), files));
  }

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
  if (error instanceof ConfigError || error instanceof StartError || error instanceof DatabaseInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
