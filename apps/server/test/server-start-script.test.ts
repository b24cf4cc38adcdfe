import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordPendingInitialRevisions } from "../src/db/modpack-revisions.js";
import { freePort } from "./support/net.js";
import { insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { waitFor } from "./support/wait.js";

const DOC = path.resolve(import.meta.dirname, "../../../docs/server-start.md");

/** The start script exactly as docs/server-start.md shows it: the sh block after its marker. */
async function documentedScript(): Promise<string> {
  const text = await readFile(DOC, "utf8");
  const match = /<!-- start-script -->\s*```sh\n([\s\S]*?)```/.exec(text);
  if (!match?.[1]) throw new Error("docs/server-start.md has no start script block");
  return match[1];
}

interface Run {
  code: number;
  stderr: string;
}

/** Runs the script with sh, as a container's start command would; the "server" writes a marker file. */
function runScript(script: string, env: Record<string, string>, started: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      "sh",
      [script, "sh", "-c", `echo started > "${started}"`],
      { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 60_000 },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
    );
  });
}

let service: TestService;
let base: string;
let owner: SignedIn;
let modpackId: string;
let token: string;
let workdir: string;
let script: string;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  base = await service.app.listen({ port: 0, host: "127.0.0.1" });
  owner = await signIn(service, { name: "Server owner" });
  const map = await insertMod(service, {
    workshopId: "4300000001",
    name: "Town map",
    platformModIds: ["TownMap"],
    mapFolders: ["Town Map"],
  });
  const weapons = await insertMod(service, { workshopId: "4300000002", name: "Weapons", platformModIds: ["Weapons"] });
  modpackId = await insertModpack(service, { ownerId: owner.userId, modIds: [map.id, weapons.id] });
  const created = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    headers: owner.headers,
    payload: { name: "server start", scopes: ["read", "report"], modpackIds: [modpackId] },
  });
  expect(created.statusCode, created.body).toBe(201);
  token = created.json().token;
  workdir = await mkdtemp(path.join(tmpdir(), "server-start-"));
  script = path.join(workdir, "start-modpack.sh");
  await writeFile(script, await documentedScript());
});
afterAll(async () => {
  await service.stop();
  await rm(workdir, { recursive: true, force: true });
});

const OWNERS_FILE =
  "\uFEFF# My server\r\nPVP=true\r\nMods=OldMod\r\nWorkshopItems=1\r\nMap=My Own Town;Muldraugh, KY\r\nPublicName=Zомбі\r\nMods=Duplicate\r\n";

describe("the documented start script", () => {
  it("patches the server's own servertest.ini, then starts the server", async () => {
    const ini = path.join(workdir, "reachable.ini");
    const started = path.join(workdir, "reachable.started");
    await writeFile(ini, OWNERS_FILE);
    const run = await runScript(
      script,
      { MODPACK_URL: base, MODPACK_ID: modpackId, MODPACK_TOKEN: token, PZ_INI: ini },
      started,
    );
    expect(run).toEqual({ code: 0, stderr: "" });
    expect(await readFile(ini, "utf8")).toBe(
      "\uFEFF# My server\r\nPVP=true\r\nMods=\\TownMap;\\Weapons\r\nWorkshopItems=4300000001;4300000002\r\nMap=Town Map;My Own Town;Muldraugh, KY\r\nPublicName=Zомбі\r\n",
    );
    expect(existsSync(started)).toBe(true);
    expect(existsSync(`${ini}.new`)).toBe(false);
  });

  it.each([
    { name: "the service is unreachable (a closed loopback port)", url: "closed", token: "read" },
    { name: "the token is refused", url: "service", token: "mcs_not-a-token-at-all-0000000000000000" },
    {
      name: "the modpack is not the token's",
      url: "service",
      token: "read",
      modpack: "01a1fe07-0000-7000-8000-000000000000",
    },
  ])("keeps the old file and still starts the server when $name", async (c) => {
    const ini = path.join(workdir, `kept-${c.name.length}.ini`);
    const started = path.join(workdir, `kept-${c.name.length}.started`);
    await writeFile(ini, OWNERS_FILE);
    const url = c.url === "closed" ? `http://127.0.0.1:${await freePort()}` : base;
    const run = await runScript(
      script,
      {
        MODPACK_URL: url,
        MODPACK_ID: c.modpack ?? modpackId,
        MODPACK_TOKEN: c.token === "read" ? token : c.token,
        PZ_INI: ini,
      },
      started,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("modpack service unreachable");
    expect(await readFile(ini, "utf8")).toBe(OWNERS_FILE);
    expect(existsSync(started)).toBe(true);
    expect(existsSync(`${ini}.new`)).toBe(false);
  });
});

/** Real log lines of a clean Build 42 start and of a start missing a mod (fixtures/server-logs/SOURCES.md). */
const CLEAN_LOG = path.resolve(
  import.meta.dirname,
  "fixtures/server-logs/b42-clean-start-pepenotti-zomboid-server.log",
);
const MISSING_LOG = path.resolve(
  import.meta.dirname,
  "fixtures/server-logs/b42-missing-mod-wengera-zomboid-mod-nutrition.log",
);

/**
 * A stand-in for the game server: prints a clean start's log when the ini's `Mods=` holds `Weapons`,
 * else a start missing a mod, then stays up until SIGTERM, which it answers by exiting with 143.
 */
const FAKE_SERVER = `#!/bin/sh
trap 'exit 143' TERM
if grep -q '^Mods=.*Weapons' "$PZ_INI"; then cat "${CLEAN_LOG}"; else cat "${MISSING_LOG}"; echo 'LOG  : Network      f:0 st:1> *** SERVER STARTED ****'; fi
while :; do sleep 0.2; done
`;

describe("the documented start script's report", () => {
  async function starts(id: string) {
    const response = await service.app.inject({
      method: "GET",
      url: `/modpacks/${id}/server-starts`,
      headers: owner.headers,
    });
    return response.json().data as { revision: number; outcome: string }[];
  }

  /** Starts the script with the stand-in server, in the background, as a container would. */
  async function launch(id: string, ini: string, env: Record<string, string> = {}) {
    const server = path.join(workdir, "fake-server.sh");
    await writeFile(server, FAKE_SERVER, { mode: 0o755 });
    const child = spawn("sh", [script, server], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        MODPACK_URL: base,
        MODPACK_ID: id,
        MODPACK_TOKEN: token,
        PZ_INI: ini,
        START_TIMEOUT: "60",
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    return { child, exited, stderr: () => stderr };
  }

  it("sends the log up to the server being up with the file's revision, leaves the server running, and forwards SIGTERM", async () => {
    await service.runtime.database.db.insertInto("pendingInitialRevisions").values({ modpackId }).execute();
    await recordPendingInitialRevisions(service.runtime.database.db);
    const ini = path.join(workdir, "report.ini");
    await writeFile(ini, "PVP=true\nMods=OldMod\n");
    // The tests above reported their starts too (servers that ended before they were up).
    const before = (await starts(modpackId)).length;
    const run = await launch(modpackId, ini);
    const reported = await waitFor(
      "the start report",
      () => starts(modpackId),
      (list) => list.length > before,
    );
    expect(reported[0]).toMatchObject({ revision: 1, outcome: "started" });
    // Up and reported, the server still runs; the container's SIGTERM reaches it.
    expect(run.child.exitCode).toBeNull();
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(143);
    expect(run.stderr()).toBe("");
  });

  it("with FALLBACK=last-good, starts once more with the last revision that started cleanly after a failed start", async () => {
    const map = await insertMod(service, { workshopId: "4300000011", name: "Map two", platformModIds: ["MapTwo"] });
    const weapons = await insertMod(service, {
      workshopId: "4300000012",
      name: "Weapons two",
      platformModIds: ["Weapons"],
    });
    const id = await insertModpack(service, { ownerId: owner.userId, modIds: [map.id, weapons.id] });
    await service.runtime.database.db.insertInto("pendingInitialRevisions").values({ modpackId: id }).execute();
    await recordPendingInitialRevisions(service.runtime.database.db);
    const created = await service.app.inject({
      method: "POST",
      url: "/auth/tokens",
      headers: owner.headers,
      payload: { name: "fallback", scopes: ["read", "report"], modpackIds: [id] },
    });
    const packToken = created.json().token as string;
    const clean = await service.app.inject({
      method: "POST",
      url: `/modpacks/${id}/server-starts?version=42x&revision=1`,
      headers: { authorization: `Bearer ${packToken}`, "content-type": "text/plain" },
      payload: await readFile(CLEAN_LOG),
    });
    expect(clean.json().outcome).toBe("started");
    // Revision 2 drops Weapons: the stand-in's start then misses a mod.
    const removed = await service.app.inject({
      method: "DELETE",
      url: `/modpacks/${id}/mods/${weapons.id}`,
      headers: owner.headers,
    });
    expect(removed.statusCode).toBe(200);

    const ini = path.join(workdir, "fallback.ini");
    await writeFile(ini, "PVP=true\nMods=OldMod\n");
    const run = await launch(id, ini, { MODPACK_TOKEN: packToken, FALLBACK: "last-good" });
    const reports = await waitFor(
      "the failed start and the one after it",
      () => starts(id),
      (list) => list.length >= 3,
    );
    expect(reports.slice(0, 2)).toMatchObject([
      { revision: 1, outcome: "started" },
      { revision: 2, outcome: "failed" },
    ]);
    expect(await readFile(ini, "utf8")).toContain("Mods=\\MapTwo;\\Weapons\n");
    expect(run.stderr()).toContain("the last that started cleanly");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(143);
  });
});
