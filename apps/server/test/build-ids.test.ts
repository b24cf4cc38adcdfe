/**
 * Per-build in-game ids: a workshop page may name different ids for Build 41 and Build 42. The
 * catalogue shows both lists, each version's server file uses its own, and rows stored before the
 * lists existed are parsed again by the migration that adds them.
 */
import { Migrator } from "kysely/migration";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.js";
import { migrations } from "../src/db/migrations/index.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { createTestDatabase } from "./support/database.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let steam: FakeSteam;
let service: TestService;
let owner: SignedIn;

const pages: Array<[label: string, description: string, b41: string[], b42: string[]]> = [
  ["build-qualified labels", "Workshop ID: 401\nMod ID (b41): FooOld\nMod ID (b42): FooNew", ["FooOld"], ["FooNew"]],
  ["a B42 label beside an unqualified id", "Mod ID: Shared\n[B42] Mod ID: Only42", ["Shared"], ["Shared", "Only42"]],
  ["unqualified ids only", "Mod ID: Plain; PlainExtra", ["Plain", "PlainExtra"], ["Plain", "PlainExtra"]],
  ["a Build 41 id only", "Mod ID (b41): Legacy", ["Legacy"], []],
];

async function call(method: "GET" | "POST", url: string, body?: unknown) {
  const response = await service.app.inject({
    method,
    url,
    headers: { ...owner.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.body, json: () => response.json() as Record<string, unknown> };
}

/** Waits for the export to leave pending/running (its status endpoint, polled). */
async function downloaded(exportId: string): Promise<string> {
  for (let attempt = 0; attempt < 3000; attempt += 1) {
    const status = (await call("GET", `/modpacks/export/${exportId}`)).json();
    if (status.status === "completed") return (await call("GET", `/modpacks/export/${exportId}/download`)).body;
    if (status.status === "failed") throw new Error(`export failed: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("export did not finish");
}

beforeAll(async () => {
  steam = await startFakeSteam();
  pages.forEach(([, description], index) => {
    const workshopId = String(401 + index);
    steam.items.set(workshopId, fakeItem(workshopId, { description }));
  });
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url, WORKSHOP_MAX_RETRIES: "0" } });
  owner = await signIn(service, { name: "Build owner" });
});

afterAll(async () => {
  await service?.stop();
  await steam?.close();
});

describe("per-build ids", () => {
  it.each(pages.map((page, index) => [...page, String(401 + index)] as const))(
    "%s: the mod shows each build's ids",
    async (_label, _description, b41, b42, workshopId) => {
      const added = await call("POST", "/mods", { modAttribute: workshopId });
      expect(added.status, added.body).toBeLessThan(300);
      const mod = added.json();
      expect(mod.buildModIds).toEqual({ "41x": b41, "42x": b42 });
      expect(new Set(mod.platformModId as string[])).toEqual(new Set([...b41, ...b42]));
    },
  );

  it("writes the 41x ids into the 41x file and the 42x ids into the 42x file", async () => {
    const modpack = (await call("POST", "/modpacks", { name: "Two builds" })).json();
    for (const workshopId of ["401", "402"]) {
      expect((await call("POST", `/modpacks/${modpack.id}/mods`, { modAttribute: workshopId })).status).toBe(201);
    }
    const files: Record<string, string> = {};
    for (const version of ["41x", "42x"] as const) {
      const requested = await call("POST", `/modpacks/${modpack.id}/server-file`, { version });
      expect(requested.status, requested.body).toBe(202);
      files[version] = await downloaded(String(requested.json().exportId));
    }
    const modsLine = (file: string | undefined) => file?.split("\n").find((line) => line.startsWith("Mods="));
    expect(modsLine(files["41x"])).toBe("Mods=FooOld;Shared");
    expect(modsLine(files["42x"])).toBe("Mods=\\FooNew;\\Shared;\\Only42");
  });
});

describe("the check", () => {
  it("finds no ids for a mod that names none for the version checked", async () => {
    const modpack = (await call("POST", "/modpacks", { name: "Legacy only" })).json();
    const link = await call("POST", `/modpacks/${modpack.id}/mods`, { modAttribute: "404" });
    expect(link.status, link.body).toBe(201);
    const codes = async (version: string) =>
      (
        (await call("GET", `/modpacks/${modpack.id}/check?version=${version}`)).json().findings as Array<{
          code: string;
        }>
      ).map((finding) => finding.code);
    expect(await codes("42x")).toContain("no-ids");
    expect(await codes("41x")).not.toContain("no-ids");
  });
});

describe("the migration adding per-build ids", () => {
  it("parses stored descriptions again, and keeps the ids of rows whose description names none", async () => {
    const database = await createTestDatabase();
    const handle = await openDatabase({ databaseUrl: database.url, dataDir: database.dataDir });
    try {
      const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => migrations } });
      const before = Object.keys(migrations).filter((name) => name < "0007_build_mod_ids");
      const last = before.at(-1);
      if (!last) throw new Error("no migration before 0007");
      expect((await migrator.migrateTo(last)).error).toBeUndefined();
      await handle.db
        .insertInto("mods")
        .values([
          {
            workshopId: "501",
            name: "Qualified",
            avatarUrl: null,
            description: "Mod ID (Build 41): Q41\nMod ID (Build 42): Q42",
            platformModIds: [],
          },
          { workshopId: "502", name: "Seeded", avatarUrl: null, description: "No ids here.", platformModIds: ["Kept"] },
        ])
        .execute();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const rows = await handle.db
        .selectFrom("mods")
        .select(["workshopId", "platformModIds", "modIdsB41", "modIdsB42"])
        .orderBy("workshopId")
        .execute();
      expect(rows).toEqual([
        { workshopId: "501", platformModIds: ["Q41", "Q42"], modIdsB41: ["Q41"], modIdsB42: ["Q42"] },
        { workshopId: "502", platformModIds: ["Kept"], modIdsB41: null, modIdsB42: null },
      ]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
