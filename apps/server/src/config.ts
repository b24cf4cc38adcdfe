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

const environmentSchema = z.object({
  NODE_ENV: z.string().default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// connection string")
    .optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
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
});

export type Environment = z.input<typeof environmentSchema>;

export interface Config {
  env: string;
  isProduction: boolean;
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
  logLevel: z.infer<typeof environmentSchema>["LOG_LEVEL"];
  originsAllowed: string[];
  oauth: {
    provider: "discord" | "github" | "google" | "custom" | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
    authorizationUrl: string | undefined;
    tokenUrl: string | undefined;
    userinfoUrl: string | undefined;
    scopes: string[] | undefined;
  };
  adminEmails: string[];
  workshopApiUrl: string;
  steamApiKey: string | undefined;
  /** Per-request limit of a Steam Web API call, reading the body included. */
  workshopTimeoutMs: number;
  /** Retries of a failed Steam Web API call after the first attempt. */
  workshopMaxRetries: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the environment into a typed config; the first bad variable stops start-up with one line naming it. */
export function loadConfig(environment: Record<string, string | undefined> = process.env): Config {
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
  return {
    env: e.NODE_ENV,
    isProduction,
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
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
    workshopTimeoutMs: e.WORKSHOP_TIMEOUT_MS,
    workshopMaxRetries: e.WORKSHOP_MAX_RETRIES,
  };
}
