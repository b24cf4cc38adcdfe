import type { Services } from "@modpack/contract";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { pino } from "pino";
import { createAuthenticate } from "./auth/authenticate.js";
import { openRevocationChannel, type RevocationChannel } from "./auth/revocations.js";
import { signOutRoutes } from "./auth/routes.js";
import { createSessionStore, type SessionStore } from "./auth/sessions.js";
import type { Config } from "./config.js";
import { type DatabaseHandle, openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { type Authenticate, buildApp, type RouteModule } from "./http/app.js";
import { type JobDefinition, type Jobs, startJobs } from "./jobs/boss.js";
import { sweepSessionsJob } from "./jobs/maintenance.js";
import { authService } from "./services/auth.js";
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
  sessions: SessionStore;
  /** Stops accepting requests, finishes those in flight and the running jobs, closes the pools. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  role?: ProcessRole;
  logger?: FastifyBaseLogger;
  /** Wraps the services before the app uses them (tests make a procedure fail with it). */
  services?: ((services: Services) => Services) | undefined;
  /** The clock sessions and tokens expire by, in epoch milliseconds. */
  clock?: (() => number) | undefined;
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
  let revocations: RevocationChannel | undefined;
  try {
    await migrateToLatest(database.db);
    const definitions: JobDefinition[] = [sweepSessionsJob(database.db)];
    jobs = await startJobs({ database, definitions, logger, workers: role !== "api" });
    const { db } = database;
    const sessions = createSessionStore(db, options.clock);
    const channel = await openRevocationChannel({
      database,
      logger,
      onMessage: (key) => sessions.evict(key),
      onGap: () => sessions.clear(),
    });
    revocations = channel;
    const builtServices: Services = {
      health: healthService(db, jobs),
      auth: authService(db, sessions, channel),
    };
    const services = options.services ? options.services(builtServices) : builtServices;
    const authenticate: Authenticate = createAuthenticate(sessions, config);
    const endSession = async (sessionId: string) => {
      await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
      await channel.publish(`session:${sessionId}`);
    };
    const routes: RouteModule[] = [signOutRoutes({ config, store: sessions, revocations: channel, endSession })];
    const startedJobs = jobs;
    let closing: Promise<void> | undefined;
    const shutdown = async () => {
      await startedJobs.stop({ graceful: true });
      await channel.close();
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
      sessions,
      close() {
        closing ??= app ? app.close() : shutdown();
        return closing;
      },
    };
  } catch (error) {
    await jobs?.stop({ graceful: false }).catch(() => {});
    await revocations?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
