import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { z } from "zod";

const csv = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

const count = (fallback: number, max = 1_000_000_000) => z.coerce.number().int().min(0).max(max).default(fallback);

/** Rate limits, bounds and retention; a rate limit of 0 is off. */
const limitsEnvironment = {
  RATE_LIMIT_PER_MINUTE: count(3000),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: count(60),
  RATE_LIMIT_WORKSHOP_PER_MINUTE: count(120),
  RATE_LIMIT_MEMBER_ADD_PER_MINUTE: count(120),
  RATE_LIMIT_WEBHOOK_PER_MINUTE: count(30),
  IMPORT_MAX_ITEMS: count(5000).pipe(z.number().min(1)),
  IMPORT_MAX_DEPTH: count(3, 100).pipe(z.number().min(1)),
  IMPORT_READ_AHEAD: count(8, 32).pipe(z.number().min(1)),
  STREAMS_PER_USER: count(5, 1000).pipe(z.number().min(1)),
  STREAMS_MAX: count(10_000).pipe(z.number().min(1)),
  STREAM_BUFFER_BYTES: count(65_536).pipe(z.number().min(1024)),
  API_TOKENS_PER_USER: count(50, 100_000).pipe(z.number().min(1)),
  PURGE_EXPORTS_AFTER_DAYS: count(30, 36_500),
  PURGE_READ_NOTIFICATIONS_AFTER_DAYS: count(90, 36_500),
  PURGE_WEBHOOK_DELIVERIES_AFTER_DAYS: count(30, 36_500),
  INVITATION_EXPIRY_DAYS: count(14, 365).pipe(z.number().min(1)),
};

/**
 * The key webhook secrets are encrypted with when none is configured: fine on a developer's machine,
 * refused in production, where anyone who read this file could decrypt the secrets.
 */
export const DEVELOPMENT_WEBHOOK_KEY = "ZGV2ZWxvcG1lbnQtb25seS13ZWJob29rLWtleS0zMmI=";

const flag = z
  .enum(["true", "false"], { message: "must be true or false" })
  .default("false")
  .transform((value) => value === "true");

const seconds = z.coerce
  .number<string>()
  .min(0)
  .max(7 * 24 * 3600);
const secondsList = csv.pipe(z.array(seconds).max(20));

const webhookEnvironment = {
  WEBHOOK_SECRET_KEY: z
    .string()
    .refine((value) => Buffer.from(value, "base64").length === 32 && /^[A-Za-z0-9+/]+=*$/.test(value), {
      message: "must be 32 random bytes in base64 (openssl rand -base64 32)",
    })
    .default(DEVELOPMENT_WEBHOOK_KEY),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag,
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  WEBHOOK_RETRY_SCHEDULE_SECONDS: secondsList,
  WEBHOOK_DISABLE_AFTER_SECONDS: seconds.default(24 * 3600),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  MODPACK_CHANGED_WINDOW_SECONDS: seconds.default(60),
};

/** After how long each retry of a failed webhook delivery is sent (before jitter). */
const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

const environmentSchema = z.object({
  // `Production`, ` production ` and `PRODUCTION` are production too.
  NODE_ENV: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(z.string().min(1, "must not be blank"))
    .default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// connection string")
    .optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ORIGIN_ALLOWED: csv.pipe(z.array(z.url({ protocol: /^https?$/ }))),
  OAUTH_PROVIDER: z.enum(["discord", "github", "google", "custom"]).optional(),
  OAUTH_CLIENT_ID: z.string().min(1).optional(),
  OAUTH_CLIENT_SECRET: z.string().min(1).optional(),
  OAUTH_AUTHORIZATION_URL: optionalUrl,
  OAUTH_TOKEN_URL: optionalUrl,
  OAUTH_USERINFO_URL: optionalUrl,
  OAUTH_SCOPES: z.string().optional(),
  ADMIN_EMAILS: csv.pipe(z.array(z.email())),
  WORKSHOP_API_URL: z.url({ protocol: /^https?$/ }).default("https://api.steampowered.com"),
  STEAM_API_KEY: z.string().min(1).optional(),
  WORKSHOP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  WORKSHOP_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  MAX_PENDING_EXPORTS_PER_USER: z.coerce.number().int().min(0).max(100_000).default(20),
  MAX_PENDING_IMPORTS_PER_USER: z.coerce.number().int().min(0).max(10_000).default(3),
  MAX_RUNNING_REFRESHES_PER_USER: z.coerce.number().int().min(0).max(10_000).default(2),
  ...limitsEnvironment,
  ...webhookEnvironment,
});

export type Environment = z.input<typeof environmentSchema>;

/** The service's settings, as `loadConfig` reads them. */
export type Config = ReturnType<typeof loadConfig>;
export type LimitsConfig = Config["limits"];

/** Accepted so that existing configurations still start, and otherwise ignored. */
const IGNORED_VARIABLES = ["DATABASE_PREPARED_STATEMENTS"];

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the environment into a typed config; the first bad variable stops start-up with one line naming it. */
export function loadConfig(environment: Record<string, string | undefined> = process.env) {
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? "environment");
    const value = present[name];
    throw new ConfigError(
      `Invalid configuration: ${name}${value === undefined ? "" : `=${JSON.stringify(value)}`}: ${issue?.message ?? "invalid value"}`,
    );
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const provider = e.OAUTH_PROVIDER;
  if (provider === "custom") {
    for (const name of ["OAUTH_AUTHORIZATION_URL", "OAUTH_TOKEN_URL", "OAUTH_USERINFO_URL"] as const) {
      if (!e[name]) throw new ConfigError(`Invalid configuration: ${name} is required when OAUTH_PROVIDER=custom`);
    }
  }
  if (provider) {
    for (const name of ["OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET"] as const) {
      if (!e[name]) throw new ConfigError(`Invalid configuration: ${name} is required when OAUTH_PROVIDER is set`);
    }
  }
  const isProduction = e.NODE_ENV === "production";
  if (isProduction && !provider) {
    throw new ConfigError(
      "Invalid configuration: OAUTH_PROVIDER is required when NODE_ENV=production (the development identity provider is disabled in production)",
    );
  }
  // Production's cookies are Secure: over http a browser would never send them back.
  if (isProduction && new URL(publicUrl).protocol !== "https:") {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_URL=${JSON.stringify(publicUrl)}: must be an https:// URL when NODE_ENV=production (its cookies are Secure)`,
    );
  }
  if (isProduction && e.WEBHOOK_SECRET_KEY === DEVELOPMENT_WEBHOOK_KEY) {
    throw new ConfigError(
      "Invalid configuration: WEBHOOK_SECRET_KEY is required when NODE_ENV=production (the development key is public)",
    );
  }
  return {
    env: e.NODE_ENV,
    isProduction,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    /** Postgres statement timeout of the service's connections, ms (0: none); beyond it the request answers 503. */
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    /** Longest wait for a pooled Postgres connection, ms; beyond it the request answers 503. */
    databasePoolTimeoutMs: e.DATABASE_POOL_TIMEOUT_MS,
    /** Variables set in the environment that no longer do anything: start-up warns about them. */
    ignoredVariables: IGNORED_VARIABLES.filter((name) => present[name] !== undefined),
    logLevel: e.LOG_LEVEL,
    originsAllowed: e.ORIGIN_ALLOWED.map((origin) => new URL(origin).origin),
    oauth: {
      provider,
      clientId: e.OAUTH_CLIENT_ID,
      clientSecret: e.OAUTH_CLIENT_SECRET,
      authorizationUrl: e.OAUTH_AUTHORIZATION_URL,
      tokenUrl: e.OAUTH_TOKEN_URL,
      userinfoUrl: e.OAUTH_USERINFO_URL,
      scopes: e.OAUTH_SCOPES?.split(/[\s,]+/).filter((scope) => scope.length > 0),
    },
    adminEmails: e.ADMIN_EMAILS.map((email) => email.toLowerCase()),
    workshopApiUrl: e.WORKSHOP_API_URL.replace(/\/+$/, ""),
    steamApiKey: e.STEAM_API_KEY,
    /** Per-request limit of a Steam Web API call, reading the body included. */
    workshopTimeoutMs: e.WORKSHOP_TIMEOUT_MS,
    /** Retries of a failed Steam Web API call after the first attempt. */
    workshopMaxRetries: e.WORKSHOP_MAX_RETRIES,
    /**
     * What one user may have queued or running at once (0: no bound): server files and imports
     * pending or running, and mod refreshes in flight on this instance. Past a bound: 429.
     */
    perUserLimits: {
      exports: e.MAX_PENDING_EXPORTS_PER_USER,
      imports: e.MAX_PENDING_IMPORTS_PER_USER,
      refreshes: e.MAX_RUNNING_REFRESHES_PER_USER,
    },
    webhooks: {
      /** Encrypts webhook secrets at rest (AES-256-GCM). */
      secretKey: Buffer.from(e.WEBHOOK_SECRET_KEY, "base64"),
      /** Lets targets resolve to loopback and private addresses, and use http: tests, LAN installs, pnpm dev. */
      allowPrivateTargets: e.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      /** One delivery attempt's limit, the answer's first 4 KB included. */
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      /** The delays of the retries after a failed attempt, in seconds; jitter adds up to a tenth. */
      retrySchedule:
        e.WEBHOOK_RETRY_SCHEDULE_SECONDS.length > 0 ? e.WEBHOOK_RETRY_SCHEDULE_SECONDS : DEFAULT_RETRY_SCHEDULE_SECONDS,
      /** A webhook whose deliveries have all failed for this long is disabled. */
      disableAfterSeconds: e.WEBHOOK_DISABLE_AFTER_SECONDS,
      /** Deliveries one process sends at once (to different webhooks). */
      concurrency: e.WEBHOOK_CONCURRENCY,
      /** How long after a modpack's first change its `modpack.changed` event is sent. */
      changedWindowSeconds: e.MODPACK_CHANGED_WINDOW_SECONDS,
    },
    limits: {
      /** Requests per minute per signed-in user, or per IP when anonymous; 0 is off. */
      requestsPerMinute: e.RATE_LIMIT_PER_MINUTE,
      /** Sign-in requests per minute per IP; 0 falls back to the general limit. */
      signInPerMinute: e.RATE_LIMIT_SIGN_IN_PER_MINUTE,
      /** Requests per minute per caller to operations that call the Steam Web API; 0 falls back to the general limit. */
      workshopPerMinute: e.RATE_LIMIT_WORKSHOP_PER_MINUTE,
      /** Member additions per minute per caller; 0 falls back to the general limit. */
      memberAddPerMinute: e.RATE_LIMIT_MEMBER_ADD_PER_MINUTE,
      /** Webhook creations and test events per minute per caller; 0 falls back to the general limit. */
      webhookPerMinute: e.RATE_LIMIT_WEBHOOK_PER_MINUTE,
      importMaxItems: e.IMPORT_MAX_ITEMS,
      importMaxDepth: e.IMPORT_MAX_DEPTH,
      /** Detail batches of 100 items an import reads at once, ahead of storing them (1: one at a time). */
      importReadAhead: e.IMPORT_READ_AHEAD,
      streamsPerUser: e.STREAMS_PER_USER,
      streamsMax: e.STREAMS_MAX,
      /** A live stream whose unsent output passes this many bytes is dropped. */
      streamBufferBytes: e.STREAM_BUFFER_BYTES,
      apiTokensPerUser: e.API_TOKENS_PER_USER,
      /** Days after which finished exports are deleted; 0 keeps them. */
      purgeExportsAfterDays: e.PURGE_EXPORTS_AFTER_DAYS,
      /** Days after which read notifications are deleted; 0 keeps them. */
      purgeReadNotificationsAfterDays: e.PURGE_READ_NOTIFICATIONS_AFTER_DAYS,
      /** Days after which webhook delivery attempts are deleted; 0 keeps them. */
      purgeWebhookDeliveriesAfterDays: e.PURGE_WEBHOOK_DELIVERIES_AFTER_DAYS,
      /** Days an invitation by email stays claimable after it is made or renewed. */
      invitationExpiryDays: e.INVITATION_EXPIRY_DAYS,
    },
  };
}

/**
 * Reads `.env` files into `environment` the way `node --env-file` does (Node's own parser), without
 * its complaint when a file is missing: a variable already set keeps its value, and an earlier file
 * wins over a later one. Answers the files read.
 */
export function readEnvFiles(files: string[], environment: NodeJS.ProcessEnv = process.env): string[] {
  const read: string[] = [];
  for (const file of new Set(files.map((name) => path.resolve(name)))) {
    if (!existsSync(file)) continue;
    for (const [name, value] of Object.entries(parseEnv(readFileSync(file, "utf8")))) {
      if (environment[name] === undefined) environment[name] = value;
    }
    read.push(file);
  }
  return read;
}

/**
 * The `.env` files a process reads: the one in the directory the command was run from (`INIT_CWD`,
 * which pnpm and npm set, so `pnpm start` at the repository root reads the root's `.env`), then the
 * one in the working directory.
 */
export function envFiles(environment: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  const from = environment.INIT_CWD;
  return [...(from ? [path.join(from, ".env")] : []), path.join(cwd, ".env")];
}
