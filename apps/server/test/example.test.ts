/**
 * examples/modpack-flow.ts, run the way its README says (`pnpm --filter @modpack/examples flow`)
 * as a child process, against this service listening on a real port with a fake Steam Web API.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";
import { workshopUrl } from "./support/workshop.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

let steam: FakeSteam;
let service: TestService;
let baseUrl: string;
let cwd: string;

beforeAll(async () => {
  steam = await startFakeSteam();
  // Added by URL, added by id, and a collection of two more mods, the first again, and a missing item.
  for (const id of ["3101", "3102", "3201", "3202"]) steam.items.set(id, fakeItem(id));
  steam.collections.set("3900", ["3201", "3202", "3101", "3404"]);
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url } });
  baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
  cwd = await mkdtemp(path.join(tmpdir(), "modpack-flow-"));
});
afterAll(async () => {
  await service?.stop();
  await steam?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `pnpm --filter @modpack/examples flow` from `cwd`: the pnpm running these tests when there is one, else pnpm on PATH. */
function runFlow(env: Record<string, string>): Promise<Run> {
  const pnpm = process.env.npm_execpath?.includes("pnpm") ? process.env.npm_execpath : undefined;
  const [command, prefix] = pnpm && /\.[cm]?js$/.test(pnpm) ? [process.execPath, [pnpm]] : [pnpm ?? "pnpm", []];
  // INIT_CWD tells the script where pnpm was started; the one of the pnpm running the tests must not leak in.
  const { INIT_CWD: _ignored, ...inherited } = process.env;
  const child = spawn(command, [...prefix, "--dir", ROOT, "--filter", "@modpack/examples", "flow"], {
    cwd,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so a run that hangs is ended with the node processes pnpm started.
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    }, 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

it("creates a modpack, adds and imports mods, reorders, and downloads the 42x server file", async () => {
  const owner = await signIn(service, { name: "Example Runner" });
  const created = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    headers: owner.headers,
    payload: { name: "examples/modpack-flow.ts", expiresInDays: 1 },
  });
  expect(created.statusCode, created.body).toBe(201);

  const run = await runFlow({
    MODPACK_URL: baseUrl,
    MODPACK_TOKEN: created.json().token,
    COLLECTION_URL: workshopUrl("3900"),
    MOD_URL: workshopUrl("3101"),
    MOD_ID: "3102",
    MODPACK_NAME: "Example Flow Pack",
  });
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.code, output).toBe(0);

  // The steps, in order, with the import's progress and live notifications.
  expect(run.stdout).toMatch(/modpack: created "Example Flow Pack"/);
  expect(run.stdout).toMatch(/mods: added https:\/\/steamcommunity\.com\/sharedfiles\/filedetails\/\?id=3101/);
  expect(run.stdout).toMatch(/mods: added workshop item 3102/);
  expect(run.stdout).toMatch(/^import: (?:pending|running|completed)\b.*\(imported \d+, failed \d+\)$/m);
  expect(run.stdout).toMatch(/^import: completed 4\/4 items \(imported 3, failed 1\)$/m);
  expect(run.stdout).toMatch(/^import: skipped 3404 \(missing\)$/m);
  expect(run.stdout).toMatch(/^notification: \[\w+\] /m);
  expect(run.stdout).toMatch(/^export configuration: saved, 4 mods/m);
  expect(run.stdout).toMatch(/^server file: completed$/m);

  // Saved in the directory the command was started from, named after the modpack.
  const file = path.join(cwd, "example-flow-pack-42x.ini");
  expect(run.stdout).toContain(`saved: ${file}`);
  expect(await readdir(cwd)).toEqual(["example-flow-pack-42x.ini"]);
  const ini = await readFile(file, "utf8");
  expect(ini).toContain("# Game version: 42x");
  const mods = ini.split("\n").find((line) => line.startsWith("Mods="));
  // Build 42 ids carry a `\` prefix. The mod added by id loads first (the script's reorder), then
  // the one added by URL, then the collection's two (linked together, so in either order).
  const ids = mods?.slice("Mods=".length).split(";");
  expect(ids?.slice(0, 2)).toEqual([String.raw`\Mod3102`, String.raw`\Mod3101`]);
  expect(ids?.slice(2).sort()).toEqual([String.raw`\Mod3201`, String.raw`\Mod3202`]);
  expect(ini).toMatch(/^WorkshopItems=3102;3101;(?:3201;3202|3202;3201)$/m);
}, 120_000);

it("prints the service's error and exits 1 when the token is not valid", async () => {
  const run = await runFlow({ MODPACK_URL: baseUrl, MODPACK_TOKEN: "mcs_not-a-real-token" });
  expect(run.code, `${run.stdout}\n${run.stderr}`).not.toBe(0);
  expect(run.stderr).toMatch(/^error: Unauthorized \(UNAUTHORIZED, HTTP 401\)$/m);
}, 120_000);
