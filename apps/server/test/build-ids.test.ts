/**
 * Per-build in-game ids: a workshop page may name different ids for Build 41 and Build 42. The
 * catalogue shows both lists, each version's server file uses its own, and rows stored before the
 * lists existed are parsed again by the catalogue re-parse job.
 */

import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOBS_SCHEMA } from "../src/jobs/boss.js";
import { REPARSE_QUEUE } from "../src/jobs/reparse.js";
import { PARSER_VERSION } from "../src/workshop/description.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
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

describe("the catalogue re-parse job", () => {
  it("is queued at every start, parses rows an older parser produced again, keeps the ids of rows naming none, and leaves current rows alone", async () => {
    // Its database is a copy of one whose own start queued the job already: only this start's counts.
    const before = new Date();
    const reparsing = await startTestService();
    try {
      const { db } = reparsing.runtime.database;
      const queuedAtStart = await sql<{ count: string }>`
        select count(*)::text as count from ${sql.table(`${JOBS_SCHEMA}.job`)}
        where name = ${REPARSE_QUEUE} and created_on >= ${before}
      `.execute(db);
      expect(Number(queuedAtStart.rows[0]?.count)).toBeGreaterThanOrEqual(1);

      const rows = [
        { workshopId: "501", description: "Mod ID (Build 41): Q41\nMod ID (Build 42): Q42", platformModIds: [] },
        { workshopId: "502", description: "No ids here.", platformModIds: ["Kept"] },
        { workshopId: "503", description: "Mod ID: Plain [B42] Mod ID: Only42", platformModIds: ["Stale"] },
      ];
      await db
        .insertInto("mods")
        .values([
          ...rows.map((row) => ({ ...row, name: `Old ${row.workshopId}`, avatarUrl: null, parserVersion: 0 })),
          {
            workshopId: "504",
            name: "Current",
            avatarUrl: null,
            description: "Mod ID: Other",
            platformModIds: ["AsRefreshed"],
            parserVersion: PARSER_VERSION,
          },
        ])
        .execute();
      // The hourly run, sent now rather than waited for.
      await reparsing.runtime.jobs.send(REPARSE_QUEUE, {});
      const older = () =>
        db
          .selectFrom("mods")
          .select(db.fn.countAll<string>().as("count"))
          .where("parserVersion", "<", PARSER_VERSION)
          .executeTakeFirstOrThrow();
      for (let attempt = 0; Number((await older()).count) > 0; attempt += 1) {
        if (attempt > 3000) throw new Error("the re-parse job did not run");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const stored = await db
        .selectFrom("mods")
        .select(["workshopId", "platformModIds", "modIdsB41", "modIdsB42", "parserVersion"])
        .orderBy("workshopId")
        .execute();
      expect(stored).toEqual([
        { workshopId: "501", platformModIds: ["Q41", "Q42"], modIdsB41: ["Q41"], modIdsB42: ["Q42"], parserVersion: 1 },
        { workshopId: "502", platformModIds: ["Kept"], modIdsB41: null, modIdsB42: null, parserVersion: 1 },
        {
          workshopId: "503",
          platformModIds: ["Plain", "Only42"],
          modIdsB41: ["Plain"],
          modIdsB42: ["Plain", "Only42"],
          parserVersion: 1,
        },
        { workshopId: "504", platformModIds: ["AsRefreshed"], modIdsB41: null, modIdsB42: null, parserVersion: 1 },
      ]);
    } finally {
      await reparsing.stop();
    }
  });
});
