import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { exitOf, startServiceProcess } from "./support/process.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

let database: TestDatabase;
let dataRoot: string;

// Only the first test starts on Postgres when DATABASE_URL is set; the others start on an embedded
// database (its directory, its lock, one in memory) or stop before any database opens, whatever
// the run: one of CI's two runs (the embedded database's, which is also a bare `pnpm test`) is enough.
const onPostgres = Boolean(process.env.DATABASE_URL);
const embeddedRunOnly = it.skipIf(onPostgres);

beforeAll(async () => {
  database = await createTestDatabase();
  dataRoot = await mkdtemp(path.join(tmpdir(), "mcs-process-"));
});
afterAll(async () => {
  await database.drop();
  await rm(dataRoot, { recursive: true, force: true });
});

describe("the service process", () => {
  it("stops on SIGTERM after finishing, and exits on its own with code 0", async () => {
    const env: Record<string, string> = database.url
      ? { DATABASE_URL: database.url }
      : { DATA_DIR: path.join(dataRoot, "shutdown") };
    const started = await startServiceProcess(env);
    const health = await fetch(`http://127.0.0.1:${started.port}/health`);
    expect(await health.json()).toEqual({ message: "OK" });
    const stoppedAt = Date.now();
    started.child.kill("SIGTERM");
    // Exiting by itself (no process.exit on this path) proves nothing was left open.
    const code = await exitOf(started.child);
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(60_000);
    expect(started.output()).toContain('"msg":"stopped"');
  }, 240_000);

  embeddedRunOnly(
    "creates DATA_DIR on the first start without DATABASE_URL and reuses it on the second",
    async () => {
      const dataDir = path.join(dataRoot, "embedded");
      expect(existsSync(dataDir)).toBe(false);
      const cold = await startServiceProcess({ DATA_DIR: dataDir });
      const created = await fetch(`http://127.0.0.1:${cold.port}/health/ready`);
      expect(created.status).toBe(200);
      cold.child.kill("SIGTERM");
      expect(await exitOf(cold.child)).toBe(0);
      expect(existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true);

      const warm = await startServiceProcess({ DATA_DIR: dataDir });
      expect(warm.output()).not.toContain("Applied");
      const ready = await fetch(`http://127.0.0.1:${warm.port}/health/ready`);
      expect(ready.status).toBe(200);
      warm.child.kill("SIGTERM");
      expect(await exitOf(warm.child)).toBe(0);
      process.stdout.write(`embedded database start: cold ${cold.startupMs} ms, warm ${warm.startupMs} ms\n`);
    },
    360_000,
  );

  const provider = { OAUTH_PROVIDER: "github", OAUTH_CLIENT_ID: "id", OAUTH_CLIENT_SECRET: "secret" };
  embeddedRunOnly.each<{ case: string; env: Record<string, string>; line: RegExp }>([
    { case: "a bad port", env: { PORT: "not-a-port" }, line: /^Invalid configuration: PORT="not-a-port"/ },
    {
      case: "production (any case) over http",
      env: { NODE_ENV: " Production ", PUBLIC_URL: "http://modpacks.example.com", ...provider },
      line: /^Invalid configuration: PUBLIC_URL="http:\/\/modpacks.example.com": must be an https:\/\/ URL/,
    },
    {
      case: "production with no provider",
      env: { NODE_ENV: "PRODUCTION", PUBLIC_URL: "https://modpacks.example.com" },
      line: /^Invalid configuration: OAUTH_PROVIDER is required when NODE_ENV=production/,
    },
  ])(
    "stops start-up with one clear line: $case",
    async ({ env, line }) => {
      const child = spawnEntry("src/main.ts", env);
      expect(await exitOf(child.process)).toBe(1);
      expect(child.stderr().trim().split("\n")).toHaveLength(1);
      expect(child.stderr()).toMatch(line);
    },
    180_000,
  );

  embeddedRunOnly(
    "keeps the embedded database to one process: a second one stops with one line, until the first has stopped",
    async () => {
      const dataDir = path.join(dataRoot, "locked");
      const first = await startServiceProcess({ DATA_DIR: dataDir });
      try {
        for (const entry of ["src/cli/seed-cli.ts", "src/main.ts"]) {
          const second = spawnEntry(entry, { DATA_DIR: dataDir, PORT: "0" });
          expect(await exitOf(second.process)).toBe(1);
          expect(second.stderr().trim().split("\n")).toHaveLength(1);
          expect(second.stderr()).toMatch(/^The embedded database in .*locked is in use by another process/);
        }
        // The first process never noticed.
        expect((await fetch(`${first.base}/health/ready`)).status).toBe(200);
      } finally {
        first.child.kill("SIGTERM");
        expect(await exitOf(first.child)).toBe(0);
      }
      const seed = spawnEntry("src/cli/seed-cli.ts", { DATA_DIR: dataDir });
      expect(await exitOf(seed.process)).toBe(0);
      expect(seed.stdout()).toMatch(/^Seeded /);
    },
    360_000,
  );

  embeddedRunOnly(
    "reports a port in use in one line",
    async () => {
      const first = await startServiceProcess({ DATA_DIR: "memory://" });
      try {
        const second = spawnEntry("src/main.ts", { DATA_DIR: "memory://", PORT: String(first.port) });
        expect(await exitOf(second.process)).toBe(1);
        expect(second.stderr().trim().split("\n")).toHaveLength(1);
        expect(second.stderr()).toMatch(new RegExp(`^Port ${first.port} on 127.0.0.1 is already in use`));
      } finally {
        first.child.kill("SIGTERM");
        await exitOf(first.child);
      }
    },
    360_000,
  );

  embeddedRunOnly(
    "reads .env from the directory the command ran in, the environment winning over it",
    async () => {
      const directory = await mkdtemp(path.join(dataRoot, "dotenv-"));
      const dataDir = path.join(directory, "from-dotenv");
      // LOG_LEVEL=silent would hide the start-up line this helper waits for: the environment's info wins.
      await writeFile(path.join(directory, ".env"), `# settings\nDATA_DIR=${dataDir}\nLOG_LEVEL=silent\n`);
      const started = await startServiceProcess({ INIT_CWD: directory, LOG_LEVEL: "info" });
      try {
        expect(existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true);
        expect(started.output()).toContain(`Settings  ${path.join(directory, ".env")}`);
      } finally {
        started.child.kill("SIGTERM");
        expect(await exitOf(started.child)).toBe(0);
      }
    },
    360_000,
  );

  embeddedRunOnly(
    "signs in from http://127.0.0.1 when PUBLIC_URL names localhost, and answers the API under either",
    async () => {
      const started = await startServiceProcess({ DATA_DIR: "memory://" }, { publicHost: "localhost" });
      const local = `http://localhost:${started.port}`;
      try {
        const health = await fetch(`${started.base}/health`, { redirect: "manual" });
        expect(health.status).toBe(200);
        const first = await fetch(`${started.base}/auth/idp`, { redirect: "manual" });
        expect(first.status).toBe(302);
        expect(first.headers.get("location")).toBe(`${local}/auth/idp`);
        const start = await fetch(`${local}/auth/idp`, { redirect: "manual" });
        expect(start.status).toBe(302);
        const stateCookie = start.headers.getSetCookie().map((cookie) => cookie.split(";")[0] ?? "");
        const authorize = new URL(String(start.headers.get("location")));
        expect(authorize.origin).toBe(local);
        const form = new URLSearchParams(authorize.search);
        form.set("name", "Loopback Person");
        form.set("email", "loopback@example.com");
        const submitted = await fetch(`${local}/dev-idp/authorize`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", origin: local },
          body: form.toString(),
        });
        expect(submitted.status).toBe(302);
        const callback = await fetch(String(submitted.headers.get("location")), {
          redirect: "manual",
          headers: { cookie: stateCookie.join("; ") },
        });
        expect(callback.status).toBe(302);
        const session = callback.headers.getSetCookie().find((cookie) => cookie.startsWith("svcauth.session_token="));
        expect(session).toBeDefined();
        const me = await fetch(`${started.base}/modpacks/my`, {
          headers: { cookie: String(session).split(";")[0] ?? "" },
        });
        expect(me.status).toBe(200);
      } finally {
        started.child.kill("SIGTERM");
        await exitOf(started.child);
      }
    },
    360_000,
  );
});

/** Runs an entry point of the server's sources with only `env` (and PATH), collecting its output. */
function spawnEntry(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@modpack/source", entry], {
    cwd: serverRoot,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return { process: child, stdout: () => stdout, stderr: () => stderr };
}
