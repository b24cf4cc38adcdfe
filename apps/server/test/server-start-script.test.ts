import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/net.js";
import { insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

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
    payload: { name: "server start", scopes: ["read"], modpackIds: [modpackId] },
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
