import type { Services } from "@modpack/contract";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { pino } from "pino";
import type { Config } from "./config.js";
import { type DatabaseHandle, openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { type Authenticate, buildApp, type RouteModule } from "./http/app.js";
import { type JobDefinition, type Jobs, startJobs } from "./jobs/boss.js";
import { sweepSessionsJob } from "./jobs/maintenance.js";
import { healthService } from "./services/health.js";

/** `all` serves HTTP and works jobs; `api` only serves HTTP; `worker` only works jobs. */
export type ProcessRole = "all" | "api" | "worker";

export interface Runtime {
  config: Config;
  database: DatabaseHandle;
  jobs: Jobs;
  services: Services;
  logger: FastifyBaseLogger;
  /** The HTTP application; absent in the worker role. */
  app: FastifyInstance | undefined;
  /** Stops accepting requests, finishes those in flight and the running jobs, closes the pools. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  role?: ProcessRole;
  logger?: FastifyBaseLogger;
  /** Wraps the services before the app uses them (tests make a procedure fail with it). */
  services?: ((services: Services) => Services) | undefined;
}

export function createLogger(config: Config): FastifyBaseLogger {
  return pino({
    level: config.logLevel,
    redact: { paths: ["req.headers.authorization", "req.headers.cookie"], remove: true },
  });
}

/** Config → database → migrations → jobs → services → HTTP app (not yet listening). */
export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const role = options.role ?? "all";
  const logger = options.logger ?? createLogger(config);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  let jobs: Jobs | undefined;
  try {
    await migrateToLatest(database.db);
    const definitions: JobDefinition[] = [sweepSessionsJob(database.db)];
    jobs = await startJobs({ database, definitions, logger, workers: role !== "api" });
    const builtServices: Services = {
      health: healthService(database.db, jobs),
    };
    const services = options.services ? options.services(builtServices) : builtServices;
    const authenticate: Authenticate = async () => null;
    const routes: RouteModule[] = [];
    const startedJobs = jobs;
    let closing: Promise<void> | undefined;
    const shutdown = async () => {
      await startedJobs.stop({ graceful: true });
      await database.close();
    };
    const app =
      role === "worker"
        ? undefined
        : await buildApp({ config, services, authenticate, routes, logger, onClose: shutdown });
    return {
      config,
      database,
      jobs,
      services,
      logger,
      app,
      close() {
        closing ??= app ? app.close() : shutdown();
        return closing;
      },
    };
  } catch (error) {
    await jobs?.stop({ graceful: false }).catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
