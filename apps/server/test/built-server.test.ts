import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { exitOf, type ServiceProcess, startServiceProcess } from "./support/process.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const built = path.join(serverRoot, "dist/main.js");
const template = path.join(serverRoot, "dist/embedded-template.tar.gz");

/** The newest modification time of the files below `directory`. */
function newest(directory: string): number {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs), 0);
}

/** `pnpm build` has run in CI; run alone, the test builds the server first when its sources are newer. */
function ensureBuilt(): void {
  const sources = Math.max(
    newest(path.join(serverRoot, "src")),
    newest(path.join(serverRoot, "../../packages/contract/src")),
    ...["tsdown.config.ts", "package.json", "tsconfig.build.json", "../../pnpm-lock.yaml"].map(
      (file) => statSync(path.join(serverRoot, file)).mtimeMs,
    ),
  );
  if (existsSync(built) && existsSync(template) && statSync(built).mtimeMs >= sources) return;
  const build = spawnSync("pnpm", ["run", "build"], { cwd: serverRoot, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`the server's build failed:\n${build.stdout}\n${build.stderr}`);
}

let database: TestDatabase;
let dataRoot: string;
let service: ServiceProcess;

beforeAll(async () => {
  ensureBuilt();
  // What a server owner's first start meets: a database nothing has migrated.
  database = await createTestDatabase({ empty: true });
  dataRoot = await mkdtemp(path.join(tmpdir(), "mcs-built-"));
  // A new embedded database starts from the template the build made, or Postgres when the suite runs on it.
  service = await startServiceProcess(
    database.url ? { DATABASE_URL: database.url } : { DATA_DIR: path.join(dataRoot, "data") },
    { built: true },
  );
}, 240_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill("SIGTERM");
    await exitOf(service.child);
  }
  await database?.drop();
  await rm(dataRoot, { recursive: true, force: true });
});

describe("the built server (what `pnpm start` and the Docker image run)", () => {
  const requests: [string, string, number, string][] = [
    ["GET", "/health", 200, '{"message":"OK"}'],
    ["GET", "/health/ready", 200, '"database":"ok"'],
    ["GET", "/openapi.json", 200, '"openapi":"3.1.0"'],
    ["GET", "/docs/", 200, "<!doctype html>"],
    ["GET", "/modpacks/public?limit=1", 200, '"pagination"'],
    ["GET", "/mods/tags", 200, '"tags"'],
    ["GET", "/trpc/modpacks.listPublic?input=%7B%7D", 200, '"result"'],
    ["GET", "/modpacks/public?limit=0", 400, '"issues"'],
    ["GET", "/modpacks/my", 401, '"message"'],
    ["POST", "/modpacks", 401, '"message"'],
    ["GET", "/no-such-route", 404, '"NOT_FOUND"'],
  ];

  it.each(requests)("answers %s %s with %i", async (method, url, status, fragment) => {
    const response = await fetch(`${service.base}${url}`, {
      method,
      ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}),
    });
    const body = await response.text();
    expect(response.status, body).toBe(status);
    expect(body).toContain(fragment);
  });

  it("started on a new database without running a migration, and stops on SIGTERM with code 0", async () => {
    expect(service.startupMs).not.toBeNull();
    if (!database.url) expect(service.output()).not.toContain("Applied");
    service.child.kill("SIGTERM");
    expect(await exitOf(service.child)).toBe(0);
    expect(service.output()).toContain('"msg":"stopped"');
  });
});
