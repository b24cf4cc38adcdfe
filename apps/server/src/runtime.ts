import nodeModule, { createRequire } from "node:module";
import type { Services } from "@modpack/contract";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { type DestinationStream, pino } from "pino";
import { createAuthenticate } from "./auth/authenticate.js";
import { signInRoutes } from "./auth/oauth.js";
import { openRevocationChannel, type RevocationChannel } from "./auth/revocations.js";
import { createSessionStore, type SessionStore } from "./auth/sessions.js";
import { signOutRoutes } from "./auth/sign-out.js";
import type { Config } from "./config.js";
import { type DatabaseHandle, openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { recordPendingInitialRevisions } from "./db/modpack-revisions.js";
import type { WebhookSettings } from "./db/webhook-deliveries.js";
import { redactedLogPaths, serializeRequest } from "./edge/log-redaction.js";
import type { Authenticate, RouteModule } from "./edge/routes.js";
import { buildApp } from "./http/app.js";
import { loadReference } from "./http/docs.js";
import { downloadRoutes } from "./http/downloads.js";
import { loopbackRedirect } from "./http/loopback-redirect.js";
import { notificationStreamRoutes } from "./http/notification-stream.js";
import { serverFileRoutes } from "./http/server-file.js";
import { serverStartRoutes } from "./http/server-starts.js";
import { type Jobs, startJobs } from "./jobs/boss.js";
import { jobDefinitions } from "./jobs/definitions.js";
import { buildServices } from "./service-registry.js";
import { findDownload } from "./services/exports.js";
import { findModReadVersion } from "./services/mods.js";
import { type NotificationHub, openNotificationHub } from "./services/notifications.js";
import type { Revocation } from "./services/ports.js";
import { serverFilesService } from "./services/server-files.js";
import { recordServerStart } from "./services/server-starts.js";
import { type ResolveHost, systemResolver } from "./webhooks/targets.js";
import { createWorkshopClient, type WorkshopClient } from "./workshop/client.js";

/** Notifications a live stream may hold for a reader that does not read before it is dropped. */
const STREAM_MAX_PENDING = 100;

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
  /** The Steam Web API client the services and jobs share. */
  workshop: WorkshopClient;
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
  /** The embedded database template a new DATA_DIR starts from (see db/database.ts). */
  template?: string | undefined;
  /** How webhook targets' host names are resolved (tests map names to addresses with it). */
  resolveHost?: ResolveHost | undefined;
}

/**
 * The service's logger: request URLs under /auth/ and /dev-idp/ lose their query values; no headers.
 * JSON lines, except outside production on a terminal, where pino-pretty writes them for a person.
 */
export function createLogger(config: Config, destination?: DestinationStream): FastifyBaseLogger {
  return pino(
    {
      level: config.logLevel,
      redact: { paths: redactedLogPaths, remove: true },
      serializers: { req: serializeRequest },
    },
    destination ?? (!config.isProduction && process.stdout.isTTY ? prettyStream() : undefined),
  );
}

/** pino-pretty in this thread (no worker), loaded only when used. */
function prettyStream(): DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require("pino-pretty") as (options: object) => DestinationStream;
  return pretty({ colorize: true, ignore: "pid,hostname", translateTime: "SYS:HH:MM:ss.l", sync: true });
}

/** Config → database → migrations → jobs → services → HTTP app (not yet listening). */
export async function startRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const role = options.role ?? "all";
  const logger = options.logger ?? createLogger(config);
  if (config.ignoredVariables.length > 0) {
    logger.warn({ variables: config.ignoredVariables }, "ignored configuration: these variables no longer do anything");
  }
  // Before the database opens, so the rest of the start reuses what parsing the reference's module freed.
  const reference = role === "worker" ? undefined : await loadReference(config);
  // The start's modules are loaded: written to the compile cache now (main.ts turns it on) instead of
  // at exit, Node frees the copies of their code it held until then, and the rest of the start
  // reuses that memory. A no-op where the cache is off (tests, the bench's runs from source).
  nodeModule.flushCompileCache?.();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    poolTimeoutMs: config.databasePoolTimeoutMs,
    template: options.template,
  });
  let jobs: Jobs | undefined;
  let revocations: RevocationChannel | undefined;
  let notificationHub: NotificationHub | undefined;
  try {
    await migrateToLatest(database.db);
    await recordPendingInitialRevisions(database.db);
    const workshop = createWorkshopClient({
      baseUrl: config.workshopApiUrl,
      apiKey: config.steamApiKey,
      timeoutMs: config.workshopTimeoutMs,
      maxRetries: config.workshopMaxRetries,
    });
    const webhookSettings: WebhookSettings = {
      secretKey: config.webhooks.secretKey,
      targets: { allowPrivate: config.webhooks.allowPrivateTargets, resolve: options.resolveHost ?? systemResolver },
      retrySchedule: config.webhooks.retrySchedule,
      disableAfterSeconds: config.webhooks.disableAfterSeconds,
    };
    const definitions = jobDefinitions(config, database.db, workshop, webhookSettings);
    jobs = await startJobs({ database, definitions, logger, workers: role !== "api" });
    const { db } = database;
    const sessions = createSessionStore(db, options.clock);
    const hub = await openNotificationHub({
      database,
      logger,
      bounds: {
        perUser: config.limits.streamsPerUser,
        max: config.limits.streamsMax,
        maxPending: STREAM_MAX_PENDING,
      },
      confirm: (caller) =>
        caller.sessionId
          ? sessions.current("session", caller.sessionId)
          : caller.tokenId
            ? sessions.current("token", caller.tokenId)
            : Promise.resolve(null),
      ...(options.clock ? { now: options.clock } : {}),
    });
    notificationHub = hub;
    // A revoked credential is forgotten by the session cache and ends its live streams.
    const revoke = (revocation: Revocation) => {
      sessions.evict(revocation);
      hub.revoke(revocation);
    };
    const listener = await openRevocationChannel({
      database,
      logger,
      onRevoked: revoke,
      onGap: () => {
        sessions.clear();
        hub.recheck();
      },
    });
    revocations = listener;
    // This instance forgets a revoked credential before answering; the NOTIFY reaches the others.
    const channel: RevocationChannel = {
      async publish(revocation) {
        revoke(revocation);
        await listener.publish(revocation);
      },
      close: () => listener.close(),
    };
    const {
      services: builtServices,
      modpacks,
      checks,
    } = buildServices({
      config,
      db,
      jobs,
      workshop,
      hub,
      revocations: channel,
      webhookSettings,
      clock: options.clock,
    });
    const services = options.services ? options.services(builtServices) : builtServices;
    const authenticate: Authenticate = createAuthenticate(sessions, config);
    const endSession = async (sessionId: string) => {
      await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
      await channel.publish({ kind: "session", id: sessionId });
    };
    const routes: RouteModule[] = [
      loopbackRedirect(config.publicUrl),
      signOutRoutes({ config, store: sessions, endSession }),
      ...signInRoutes({ config, db, store: sessions, revocations: channel }),
      downloadRoutes({ find: (caller, exportId) => findDownload({ db, modpacks }, caller, exportId) }),
      serverFileRoutes(serverFilesService(db, checks)),
      serverStartRoutes({
        record: (caller, modpackId, report, scan) => recordServerStart(db, caller, modpackId, report, scan),
      }),
      notificationStreamRoutes({
        notifications: services.notifications,
        maxBufferedBytes: config.limits.streamBufferBytes,
      }),
    ];
    const startedJobs = jobs;
    let closing: Promise<void> | undefined;
    const shutdown = async () => {
      await startedJobs.stop({ graceful: true });
      await hub.close();
      await channel.close();
      await database.close();
    };
    const app =
      role === "worker"
        ? undefined
        : await buildApp({
            config,
            services,
            authenticate,
            readValidators: { mod: (id) => findModReadVersion(db, id) },
            routes,
            reference,
            logger,
            // Open notification streams end first, or the server would wait on them forever.
            onPreClose: async () => hub.endStreams(),
            onClose: shutdown,
          });
    return {
      config,
      database,
      jobs,
      services,
      logger,
      app,
      sessions,
      workshop,
      close() {
        closing ??= app ? app.close() : shutdown();
        return closing;
      },
    };
  } catch (error) {
    await jobs?.stop({ graceful: false }).catch(() => {});
    await revocations?.close().catch(() => {});
    await notificationHub?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}
