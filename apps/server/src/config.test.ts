import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, DEVELOPMENT_WEBHOOK_KEY, envFiles, loadConfig, readEnvFiles } from "./config.js";

/** What production needs besides PUBLIC_URL: an identity provider and a webhook key of its own. */
const provider = {
  OAUTH_PROVIDER: "github",
  OAUTH_CLIENT_ID: "id",
  OAUTH_CLIENT_SECRET: "secret",
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
};
const https = "https://modpacks.example.com";

describe("NODE_ENV", () => {
  it.each([
    { value: "production", env: "production", isProduction: true },
    { value: "Production", env: "production", isProduction: true },
    { value: " PRODUCTION\t", env: "production", isProduction: true },
    { value: "development", env: "development", isProduction: false },
    { value: "Test", env: "test", isProduction: false },
    { value: undefined, env: "development", isProduction: false },
    { value: "", env: "development", isProduction: false },
  ])("$value is $env", ({ value, env, isProduction }) => {
    const config = loadConfig({ NODE_ENV: value, PUBLIC_URL: https, ...provider });
    expect(config.env).toBe(env);
    expect(config.isProduction).toBe(isProduction);
  });

  it("rejects a blank value", () => {
    expect(() => loadConfig({ NODE_ENV: "   " })).toThrow(/^Invalid configuration: NODE_ENV=" {3}": must not be blank/);
  });
});

describe("DATABASE_PREPARED_STATEMENTS", () => {
  it.each(["true", "false", "anything"])("%s is accepted and reported as ignored", (value) => {
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: value }).ignoredVariables).toEqual([
      "DATABASE_PREPARED_STATEMENTS",
    ]);
  });

  it("reports nothing when it is not set", () => {
    expect(loadConfig({}).ignoredVariables).toEqual([]);
  });
});

describe("PUBLIC_URL in production", () => {
  it.each([
    { PUBLIC_URL: undefined, error: /PUBLIC_URL="http:\/\/localhost:3000": must be an https:\/\/ URL/ },
    { PUBLIC_URL: "http://modpacks.example.com", error: /PUBLIC_URL="http:\/\/modpacks.example.com": must be/ },
    { PUBLIC_URL: "https://modpacks.example.com/", error: undefined },
  ])("$PUBLIC_URL", ({ PUBLIC_URL, error }) => {
    const load = () => loadConfig({ NODE_ENV: "Production", PUBLIC_URL, ...provider });
    if (error) {
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(error);
    } else {
      expect(load().publicUrl).toBe("https://modpacks.example.com");
    }
  });

  it("is not required outside production", () => {
    expect(loadConfig({ NODE_ENV: "development" }).publicUrl).toBe("http://localhost:3000");
  });
});

describe("webhook settings", () => {
  it("production refuses the development key, and any key that is not 32 bytes of base64", () => {
    const production = { NODE_ENV: "production", PUBLIC_URL: https, ...provider };
    expect(() => loadConfig({ ...production, WEBHOOK_SECRET_KEY: undefined })).toThrow(
      /^Invalid configuration: WEBHOOK_SECRET_KEY is required when NODE_ENV=production/,
    );
    expect(() => loadConfig({ ...production, WEBHOOK_SECRET_KEY: DEVELOPMENT_WEBHOOK_KEY })).toThrow(ConfigError);
    for (const bad of [
      "short",
      randomBytes(16).toString("base64"),
      randomBytes(48).toString("base64"),
      "é".repeat(44),
    ]) {
      expect(() => loadConfig({ WEBHOOK_SECRET_KEY: bad })).toThrow(/^Invalid configuration: WEBHOOK_SECRET_KEY=/);
    }
    expect(loadConfig(production).webhooks.secretKey).toEqual(Buffer.from(provider.WEBHOOK_SECRET_KEY, "base64"));
  });

  it("reads private targets as true or false only, and the retry schedule as seconds", () => {
    expect(loadConfig({}).webhooks.allowPrivateTargets).toBe(false);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }).webhooks.allowPrivateTargets).toBe(true);
    for (const bad of ["1", "yes", "TRUE "]) {
      expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: bad })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS/);
    }
    expect(loadConfig({}).webhooks.retrySchedule).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE_SECONDS: "0, 0.5,2" }).webhooks.retrySchedule).toEqual([0, 0.5, 2]);
    for (const bad of ["a,b", "-1", "5,,x"]) {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_SECONDS: bad })).toThrow(/WEBHOOK_RETRY_SCHEDULE_SECONDS/);
    }
  });
});

describe(".env files", () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "mcs-config-"));
    await writeFile(path.join(directory, "first.env"), 'PORT=4000\nHOST="0.0.0.0"\n# a comment\nDATA_DIR=first\n');
    await writeFile(path.join(directory, "second.env"), "DATA_DIR=second\nLOG_LEVEL=debug\n");
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("fill what the environment lacks, an earlier file winning, and skip missing files", () => {
    const environment: NodeJS.ProcessEnv = { PORT: "5000" };
    const files = ["first.env", "missing.env", "second.env"].map((name) => path.join(directory, name));
    expect(readEnvFiles(files, environment)).toEqual([files[0], files[2]]);
    expect(environment).toEqual({ PORT: "5000", HOST: "0.0.0.0", DATA_DIR: "first", LOG_LEVEL: "debug" });
  });

  it.each([
    { INIT_CWD: "/repo", cwd: "/repo/apps/server", files: ["/repo/.env", "/repo/apps/server/.env"] },
    { INIT_CWD: undefined, cwd: "/srv/app", files: ["/srv/app/.env"] },
  ])("are read from $INIT_CWD then $cwd", ({ INIT_CWD, cwd, files }) => {
    expect(envFiles({ INIT_CWD }, cwd)).toEqual(files);
  });
});

describe("the documented configuration", () => {
  it("lists every variable of the README's Configuration table in .env.example, with its default", async () => {
    const root = new URL("../../../", import.meta.url);
    const readme = await readFile(new URL("README.md", root), "utf8");
    const example = await readFile(new URL(".env.example", root), "utf8");
    const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## A real Postgres"));
    const documented = [...table.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
      [...(row[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]),
    );
    expect(documented.length).toBeGreaterThan(30);
    const missing = documented.filter((name) => !new RegExp(`^${name}=`, "m").test(example));
    expect(missing).toEqual([]);
  });
});
