import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertWorkshopItems } from "../src/db/mods.js";
import { runModUpdate } from "../src/jobs/mod-update.js";
import { CHECKS_AT_ONCE } from "../src/services/modpack-check.js";
import { type FakeSteam, fakeMod, fakeRequirementChain, startFakeSteam } from "./fixtures/steam-api.js";
import { createModpack, notificationsOf, waitForExport } from "./support/modpacks.js";
import { statementsOf } from "./support/query-count.js";
import { addMembers, linkMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { workshopItem } from "./support/workshop.js";

let fake: FakeSteam;
let service: TestService;
let owner: SignedIn;
let editor: SignedIn;
let reader: SignedIn;
let stranger: SignedIn;

interface Finding {
  code: string;
  severity: string;
  message: string;
  modId?: string;
  workshopId?: string;
  platformModId?: string;
  requiredWorkshopId?: string;
  relatedModIds?: string[];
}

interface Check {
  version: string;
  ok: boolean;
  findings: Finding[];
  suggestedOrder: string[];
}

interface Link {
  id: string;
  modId: string;
  created: boolean;
  dependenciesAdded: { modId: string; workshopId: string; isActive: boolean }[];
}

function call(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, user?: SignedIn, payload?: object) {
  return service.app.inject({
    method,
    url,
    ...(user ? { headers: user.headers } : {}),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function addMod(modpackId: string, reference: string): Promise<Link> {
  const response = await call("POST", `/modpacks/${modpackId}/mods`, owner, { modAtribute: reference });
  expect([200, 201], response.body).toContain(response.statusCode);
  return response.json();
}

async function check(modpackId: string, version?: string, user: SignedIn = owner): Promise<Check> {
  const response = await call("GET", `/modpacks/${modpackId}/check${version ? `?version=${version}` : ""}`, user);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

async function modIdOf(workshopId: string): Promise<string> {
  const row = await service.runtime.database.db
    .selectFrom("mods")
    .select("id")
    .where("workshopId", "=", workshopId)
    .executeTakeFirstOrThrow();
  return row.id;
}

async function saveConfiguration(modpackId: string, body: object, user: SignedIn = owner) {
  return call("PUT", `/modpacks/${modpackId}/export-configuration`, user, body);
}

/** Writes workshop items into the catalogue and links them all to the modpack, as the owner. */
async function addToCatalogueAndLink(modpackId: string, items: ReturnType<typeof workshopItem>[]): Promise<void> {
  const rows = await upsertWorkshopItems(service.runtime.database.db, items);
  await linkMods(
    service,
    modpackId,
    owner.userId,
    rows.map((row) => row.id),
  );
}

const codes = (result: Check) => result.findings.map((finding) => [finding.code, finding.workshopId ?? null]);

beforeAll(async () => {
  fake = await startFakeSteam();
  service = await startTestService({ env: { WORKSHOP_API_URL: fake.url, STEAM_API_KEY: "check-test-key" } });
  [owner, editor, reader, stranger] = await Promise.all([
    signIn(service),
    signIn(service),
    signIn(service),
    signIn(service),
  ]);
});

afterAll(async () => {
  await service?.stop();
  await fake?.close();
});

describe("requirements", () => {
  it("stores the workshop's required items and adds the missing ones, transitively, when a mod is added", async () => {
    for (const item of fakeRequirementChain(["7001", "7002", "7003"])) fake.items.set(item.workshopId, item);
    const modpackId = await createModpack(service, owner, { name: "Check pack" });

    const link = await addMod(modpackId, "7001");
    expect(link.created).toBe(true);
    expect(link.dependenciesAdded.map((added) => added.workshopId)).toEqual(["7003", "7002"]);
    expect(link.dependenciesAdded.every((added) => added.isActive)).toBe(true);

    const mod = (await call("GET", `/mods/${link.modId}`)).json();
    expect(mod.requiredWorkshopIds).toEqual(["7002"]);

    // The default load order puts the requirements first, so the pack checks clean.
    const result = await check(modpackId);
    expect(result).toEqual({
      version: "42x",
      ok: true,
      findings: [],
      suggestedOrder: [await modIdOf("7003"), await modIdOf("7002"), link.modId],
    });

    // A mod whose requirement the modpack already has adds nothing more.
    fake.items.set("7004", fakeMod("7004", { requires: ["7002"] }));
    expect((await addMod(modpackId, "7004")).dependenciesAdded).toEqual([]);
    // Adding the same mod again answers the link and adds nothing.
    const again = await addMod(modpackId, "7001");
    expect(again).toMatchObject({ created: false, dependenciesAdded: [] });
  });

  it("follows requirements the catalogue already knows without asking the workshop", async () => {
    await upsertWorkshopItems(service.runtime.database.db, [
      workshopItem("7101", { requiredWorkshopIds: ["7102"] }),
      workshopItem("7102", { requiredWorkshopIds: [] }),
    ]);
    const modpackId = await createModpack(service, owner, { name: "Check pack" });
    const before = fake.calls.length;
    const link = await addMod(modpackId, "7101");
    expect(link.dependenciesAdded.map((added) => added.workshopId)).toEqual(["7102"]);
    expect(fake.calls.slice(before).flatMap((entry) => entry.ids)).toEqual([]);
  });

  it("adds the mod even when a requirement is not on the workshop, and the check names what is missing", async () => {
    fake.items.set("7201", fakeMod("7201", { title: "Needs a ghost", requires: ["7299"] }));
    const modpackId = await createModpack(service, owner, { name: "Check pack" });
    const link = await addMod(modpackId, "7201");
    expect(link).toMatchObject({ created: true, dependenciesAdded: [] });
    const result = await check(modpackId);
    expect(result.ok).toBe(false);
    expect(result.findings).toEqual([
      {
        code: "missing-requirement",
        severity: "error",
        message: expect.stringContaining('"Needs a ghost" (workshop 7201) requires workshop item 7299'),
        modId: link.modId,
        workshopId: "7201",
        requiredWorkshopId: "7299",
      },
    ]);
  });

  it("refuses to remove a mod other mods require (409 naming them) unless force=true", async () => {
    fake.items.set("7301", fakeMod("7301", { title: "Base library" }));
    fake.items.set("7302", fakeMod("7302", { title: "Guns", requires: ["7301"] }));
    fake.items.set("7303", fakeMod("7303", { title: "Cars", requires: ["7301"] }));
    const modpackId = await createModpack(service, owner, { name: "Check pack" });
    await addMod(modpackId, "7302");
    await addMod(modpackId, "7303");
    const base = await modIdOf("7301");

    const refused = await call("DELETE", `/modpacks/${modpackId}/mods/${base}`, owner);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe("CONFLICT");
    expect(refused.json().error.message).toContain('"Guns" (workshop 7302), "Cars" (workshop 7303)');
    expect((await check(modpackId)).ok).toBe(true);

    for (const bad of ["yes", "1", "TRUE"]) {
      const malformed = await call("DELETE", `/modpacks/${modpackId}/mods/${base}?force=${bad}`, owner);
      expect(malformed.statusCode, bad).toBe(400);
    }
    const notForced = await call("DELETE", `/modpacks/${modpackId}/mods/${base}?force=false`, owner);
    expect(notForced.statusCode).toBe(409);

    const forced = await call("DELETE", `/modpacks/${modpackId}/mods/${base}?force=true`, owner);
    expect(forced.statusCode, forced.body).toBe(200);
    const result = await check(modpackId);
    expect(codes(result)).toEqual([
      ["missing-requirement", "7302"],
      ["missing-requirement", "7303"],
    ]);
    // A mod nothing requires goes without force.
    const guns = await modIdOf("7302");
    expect((await call("DELETE", `/modpacks/${modpackId}/mods/${guns}`, owner)).statusCode).toBe(200);
  });

  it("imports follow requirements through the same path", async () => {
    for (const item of fakeRequirementChain(["7401", "7402", "7403"])) fake.items.set(item.workshopId, item);
    fake.collections.set("7400", ["7401"]);
    const modpackId = await createModpack(service, owner, { name: "Check pack" });
    const started = await call("POST", `/modpacks/${modpackId}/import`, owner, {
      platformUrl: "https://steamcommunity.com/sharedfiles/filedetails/?id=7400",
    });
    expect(started.statusCode, started.body).toBe(202);
    const deadline = Date.now() + 15_000;
    let status: { status: string; modsImported: number; modsFailed: number } | undefined;
    while (Date.now() < deadline) {
      status = (await call("GET", `/modpacks/${modpackId}/import/status`, owner)).json();
      if (status?.status === "completed" || status?.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toMatchObject({ status: "completed", modsImported: 3, modsFailed: 0 });
    const result = await check(modpackId);
    expect(result.ok).toBe(true);
    expect(result.suggestedOrder).toEqual([await modIdOf("7403"), await modIdOf("7402"), await modIdOf("7401")]);
  });
});

describe("the check", () => {
  interface Case {
    name: string;
    /** Catalogue items (workshop id → options), added in this order. */
    mods: [string, Parameters<typeof fakeMod>[1]][];
    /** Load order by workshop id (default: the order added). */
    order?: string[];
    /** Selected in-game ids by workshop id. */
    selected?: Record<string, string[]>;
    version?: "41x" | "42x";
    ok: boolean;
    expected: { code: string; severity: string; workshopId?: string; extra?: Partial<Finding> }[];
    /** Suggested order by workshop id, when it differs from the saved order. */
    suggested?: string[];
  }

  const cases: Case[] = [
    {
      name: "a clean pack",
      mods: [
        ["8001", {}],
        ["8002", {}],
      ],
      ok: true,
      expected: [],
    },
    {
      name: "a requirement loading after the mod that needs it",
      mods: [
        ["8011", {}],
        ["8012", { requires: ["8011"] }],
      ],
      order: ["8012", "8011"],
      ok: true,
      expected: [
        { code: "requirement-order", severity: "warning", workshopId: "8012", extra: { requiredWorkshopId: "8011" } },
      ],
      suggested: ["8011", "8012"],
    },
    {
      name: "a stable suggested order: unrelated mods keep their place",
      mods: [
        ["8021", {}],
        ["8022", {}],
        ["8023", { requires: ["8024"] }],
        ["8024", {}],
      ],
      order: ["8021", "8023", "8022", "8024"],
      ok: true,
      expected: [{ code: "requirement-order", severity: "warning", workshopId: "8023" }],
      suggested: ["8021", "8022", "8024", "8023"],
    },
    {
      name: "mods requiring each other",
      mods: [
        ["8031", { requires: ["8032"] }],
        ["8032", { requires: ["8031"] }],
        ["8033", {}],
      ],
      order: ["8033", "8032", "8031"],
      ok: true,
      expected: [{ code: "requirement-cycle", severity: "warning" }],
      suggested: ["8033", "8032", "8031"],
    },
    {
      name: "the same in-game id in two mods",
      mods: [
        ["8041", { modIds: ["Shared", "Own1"] }],
        ["8042", { modIds: ["Shared"] }],
      ],
      ok: false,
      expected: [{ code: "id-clash", severity: "error", workshopId: "8042", extra: { platformModId: "Shared" } }],
    },
    {
      name: "a clash resolved by deselecting the id in one mod",
      mods: [
        ["8051", { modIds: ["Shared5", "Own5"] }],
        ["8052", { modIds: ["Shared5"] }],
      ],
      selected: { "8051": ["Own5"] },
      ok: true,
      expected: [],
    },
    {
      name: "a mod without in-game ids",
      mods: [["8061", { modIds: [] }]],
      ok: false,
      expected: [{ code: "no-ids", severity: "error", workshopId: "8061" }],
    },
    {
      name: "a mod tagged for Build 41 only, checked for 42x",
      mods: [
        ["8071", { builds: ["41"] }],
        ["8072", { builds: ["41", "42"] }],
        ["8073", {}],
      ],
      ok: true,
      expected: [{ code: "wrong-build", severity: "warning", workshopId: "8071" }],
    },
    {
      name: "the same mods checked for 41x",
      mods: [
        ["8081", { builds: ["41"] }],
        ["8082", { builds: ["42"] }],
      ],
      version: "41x",
      ok: true,
      expected: [{ code: "wrong-build", severity: "warning", workshopId: "8082" }],
    },
    {
      name: "a mod with every id deselected",
      mods: [["8091", { modIds: ["Off1", "Off2"] }]],
      selected: { "8091": [] },
      ok: true,
      expected: [{ code: "nothing-selected", severity: "info", workshopId: "8091" }],
    },
  ];

  it.each(cases)("$name", async (testCase) => {
    const modpackId = await createModpack(service, owner, { name: testCase.name.slice(0, 50) });
    for (const [workshopId, options] of testCase.mods) {
      fake.items.set(workshopId, fakeMod(workshopId, options));
    }
    // A mod's requirements come with it; adding them again afterwards changes nothing.
    for (const [workshopId] of testCase.mods) await addMod(modpackId, workshopId);
    const idOf = new Map<string, string>();
    for (const [workshopId] of testCase.mods) idOf.set(workshopId, await modIdOf(workshopId));
    if (testCase.order || testCase.selected) {
      const order = testCase.order ?? testCase.mods.map(([workshopId]) => workshopId);
      const saved = await saveConfiguration(modpackId, {
        modsOrder: order.map((workshopId) => idOf.get(workshopId)),
        modConfig: Object.fromEntries(
          Object.entries(testCase.selected ?? {}).map(([workshopId, ids]) => [
            idOf.get(workshopId),
            { selectedPlatformModIds: ids },
          ]),
        ),
      });
      expect(saved.statusCode, saved.body).toBe(200);
    }

    const result = await check(modpackId, testCase.version);
    expect(result.version).toBe(testCase.version ?? "42x");
    expect(result.ok).toBe(testCase.ok);
    expect(result.findings).toHaveLength(testCase.expected.length);
    testCase.expected.forEach((expected, index) => {
      const finding = result.findings[index];
      expect(finding).toMatchObject({
        code: expected.code,
        severity: expected.severity,
        message: expect.any(String),
        ...(expected.workshopId ? { workshopId: expected.workshopId, modId: idOf.get(expected.workshopId) } : {}),
        ...expected.extra,
      });
      if (expected.workshopId) expect(finding?.message).toContain(`(workshop ${expected.workshopId})`);
    });
    const expectedOrder = testCase.suggested ?? testCase.order ?? testCase.mods.map(([workshopId]) => workshopId);
    expect(result.suggestedOrder).toEqual(expectedOrder.map((id) => idOf.get(id)));
  });

  it("names every mod in a clash and a cycle", async () => {
    fake.items.set("8101", fakeMod("8101", { modIds: ["Twin"], requires: ["8102"] }));
    fake.items.set("8102", fakeMod("8102", { modIds: ["Twin"], requires: ["8101"] }));
    const modpackId = await createModpack(service, owner, { name: "Check pack" });
    await addMod(modpackId, "8101");
    const [first, second] = [await modIdOf("8101"), await modIdOf("8102")];
    const result = await check(modpackId);
    const clash = result.findings.find((finding) => finding.code === "id-clash");
    const cycle = result.findings.find((finding) => finding.code === "requirement-cycle");
    expect(new Set([clash?.modId, ...(clash?.relatedModIds ?? [])])).toEqual(new Set([first, second]));
    expect(new Set(cycle?.relatedModIds)).toEqual(new Set([first, second]));
    expect(result.findings.map((finding) => finding.severity)).toEqual(["error", "warning"]);
  });

  it("reports a mod the workshop no longer has, and tells editors once per change", async () => {
    fake.items.set("8201", fakeMod("8201", { title: "Soon gone" }));
    fake.items.set("8202", fakeMod("8202", { title: "Gains a requirement" }));
    const modpackId = await createModpack(service, owner, { name: "Notified pack" });
    await addMod(modpackId, "8201");
    await addMod(modpackId, "8202");
    await addMembers(service, modpackId, [
      { userId: editor.userId, permission: ["read", "add-mod"] },
      { userId: reader.userId, permission: ["read"] },
    ]);
    const gone = await modIdOf("8201");

    fake.items.delete("8201");
    const refreshed = await call("POST", `/mods/${gone}/refresh`, owner);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().isActive).toBe(false);
    expect(codes(await check(modpackId, "41x"))).toEqual([["unavailable", "8201"]]);

    const problems = async (user: SignedIn) =>
      (await notificationsOf(service, user)).filter((note) => JSON.parse(note.metadata).modpackId === modpackId);
    for (const user of [owner, editor]) {
      const notes = await problems(user);
      expect(notes.map((note) => [note.title, note.type])).toEqual([['A new problem in "Notified pack"', "error"]]);
      expect(JSON.parse(notes[0]?.metadata ?? "{}").findings).toEqual([
        expect.objectContaining({ code: "unavailable", workshopId: "8201" }),
      ]);
    }
    expect(await problems(reader)).toEqual([]);

    // Refreshing again changes nothing, so nobody hears of it twice.
    expect((await call("POST", `/mods/${gone}/refresh`, owner)).statusCode).toBe(200);
    expect(await problems(owner)).toHaveLength(1);

    // A requirement added upstream is a new problem.
    fake.items.set("8202", fakeMod("8202", { title: "Gains a requirement", requires: ["8299"] }));
    expect((await call("POST", `/mods/${await modIdOf("8202")}/refresh`, owner)).statusCode).toBe(200);
    const latest = await problems(owner);
    expect(latest).toHaveLength(2);
    expect(JSON.parse(latest[0]?.metadata ?? "{}").findings).toEqual([
      expect.objectContaining({ code: "missing-requirement", requiredWorkshopId: "8299" }),
    ]);
  });

  it("tells the owner of an error the update job introduces once, not on every run", async () => {
    fake.items.set("8301", fakeMod("8301", { title: "Gone by the update" }));
    const modpackId = await createModpack(service, owner, { name: "Update pack" });
    await addMod(modpackId, "8301");
    fake.items.delete("8301");
    const deps = { db: service.runtime.database.db, workshop: service.runtime.workshop, jobs: service.runtime.jobs };
    const first = await runModUpdate(deps);
    expect(first.changes).toContainEqual(expect.objectContaining({ workshopId: "8301", change: "removed" }));
    const second = await runModUpdate(deps);
    expect(second.changes).toEqual([]);
    // Folded into the run's one notification to the owner.
    const notes = (await notificationsOf(service, owner)).filter(
      (note) =>
        note.type === "error" &&
        JSON.parse(note.metadata).problems?.some((problem: { modpackId: string }) => problem.modpackId === modpackId),
    );
    // (The run sees this file's other modpacks too, so the counts in the title vary.)
    expect(notes).toHaveLength(1);
    expect(notes[0]?.title).toMatch(/in your modpacks changed \((a new problem|\d+ new problems)\)$/);
    expect(notes[0]?.content).toContain('In "Update pack": ');
  });

  it("is readable by members and public readers, and refused to others", async () => {
    const modpackId = await createModpack(service, owner, { name: "Check pack" });
    await addMembers(service, modpackId, [{ userId: reader.userId, permission: ["read"] }]);
    expect((await call("GET", `/modpacks/${modpackId}/check`, reader)).statusCode).toBe(200);
    expect((await call("GET", `/modpacks/${modpackId}/check`, stranger)).statusCode).toBe(403);
    expect((await call("GET", `/modpacks/${modpackId}/check`)).statusCode).toBe(401);
    for (const version of ["43x", "42", "42X"]) {
      const response = await call("GET", `/modpacks/${modpackId}/check?version=${version}`, owner);
      expect(response.statusCode, version).toBe(400);
    }
    expect((await call("PATCH", `/modpacks/${modpackId}`, owner, { isPublic: true })).statusCode).toBe(200);
    expect((await call("GET", `/modpacks/${modpackId}/check`, stranger)).statusCode).toBe(200);
  });

  it("costs the same number of statements for 3 mods and for 40", async () => {
    const counts: number[] = [];
    for (const size of [3, 40]) {
      const modpackId = await createModpack(service, owner, { name: `Sized ${size}` });
      const items = Array.from({ length: size }, (_, index) =>
        workshopItem(String(8_500_000 + size * 100 + index), {
          // Every third mod requires the one before it; one requirement is missing.
          requiredWorkshopIds: index % 3 === 2 ? [String(8_500_000 + size * 100 + index - 1)] : [],
        }),
      );
      items[0] = { ...items[0]!, requiredWorkshopIds: ["8599999"] };
      await addToCatalogueAndLink(modpackId, items);
      const { result, statements } = await statementsOf(service, () => check(modpackId));
      expect(result.findings.filter((finding) => finding.code === "missing-requirement")).toHaveLength(1);
      counts.push(statements.length);
    }
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBe(counts[0]);
  });

  it("answers many checks sent at once, each the same as one sent alone", async () => {
    const modpackId = await createModpack(service, owner, { name: "Checked at once" });
    const items = Array.from({ length: 30 }, (_, index) =>
      workshopItem(String(8_600_000 + index), {
        requiredWorkshopIds: index % 4 === 3 ? [String(8_600_000 + index - 1)] : index === 0 ? ["8699999"] : [],
      }),
    );
    await addToCatalogueAndLink(modpackId, items);
    const alone = await check(modpackId, "41x");
    // More than the checks computed at once (CHECKS_AT_ONCE), fewer than may wait (CHECKS_WAITING).
    const together = await Promise.all(Array.from({ length: 3 * CHECKS_AT_ONCE }, () => check(modpackId, "41x")));
    expect(together).toEqual(Array.from({ length: 3 * CHECKS_AT_ONCE }, () => alone));
    expect(alone.findings.map((finding) => finding.code)).toContain("missing-requirement");
  });
});

describe("custom in-game ids", () => {
  it("are validated, shown, written after the selected ids, and clear no-ids", async () => {
    fake.items.set("9001", fakeMod("9001", { title: "Idless", modIds: [] }));
    fake.items.set("9002", fakeMod("9002", { modIds: ["Listed", "Other"] }));
    const modpackId = await createModpack(service, owner, { name: "Custom ids" });
    await addMod(modpackId, "9001");
    await addMod(modpackId, "9002");
    const [idless, listed] = [await modIdOf("9001"), await modIdOf("9002")];
    expect(codes(await check(modpackId))).toEqual([["no-ids", "9001"]]);

    const refused: [string, unknown][] = [
      ["a semicolon", ["A;B"]],
      ["an equals sign", ["A=B"]],
      ["a line feed", ["A\nB"]],
      ["a next-line character", ["A\u0085B"]],
      ["a line separator", ["A\u2028B"]],
      ["a paragraph separator", ["A\u2029B"]],
      ["an empty id", [""]],
      ["a too long id", ["x".repeat(201)]],
      ["too many ids", Array.from({ length: 51 }, (_, index) => `Id${index}`)],
      ["a repeated id", ["Same", "Same"]],
      ["a number", [42]],
    ];
    for (const [what, ids] of refused) {
      const response = await saveConfiguration(modpackId, {
        modsOrder: [idless, listed],
        modConfig: { [idless]: { selectedPlatformModIds: [], customPlatformModIds: ids } },
      });
      expect(response.statusCode, what).toBe(400);
    }

    const saved = await saveConfiguration(modpackId, {
      modsOrder: [idless, listed],
      modConfig: {
        [idless]: { selectedPlatformModIds: [], customPlatformModIds: ["HandGiven"] },
        [listed]: { selectedPlatformModIds: ["Listed"], customPlatformModIds: ["Extra/Sub Mod"] },
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const expected = {
      modsOrder: [idless, listed],
      modConfig: {
        [idless]: { selectedPlatformModIds: [], customPlatformModIds: ["HandGiven"] },
        [listed]: { selectedPlatformModIds: ["Listed"], customPlatformModIds: ["Extra/Sub Mod"] },
      },
    };
    expect(saved.json()).toEqual(expected);
    expect((await call("GET", `/modpacks/${modpackId}/export-configuration`, owner)).json()).toEqual(expected);
    expect(await check(modpackId)).toMatchObject({ ok: true, findings: [] });

    const requested = await call("POST", `/modpacks/${modpackId}/server-file`, owner, { version: "41x" });
    const done = await waitForExport(service, owner, requested.json().exportId);
    expect(done).toMatchObject({ status: "completed", findings: [] });
    const file = (await call("GET", `/modpacks/export/${done.exportId}/download`, owner)).body;
    expect(file.split("\n")).toContain("Mods=HandGiven;Listed;Extra/Sub Mod");
    expect(file.split("\n")).toContain("WorkshopItems=9001;9002");

    // A custom id another mod also selects is a clash.
    const clashing = await saveConfiguration(modpackId, {
      modsOrder: [idless, listed],
      modConfig: { [idless]: { selectedPlatformModIds: [], customPlatformModIds: ["Listed"] } },
    });
    expect(clashing.statusCode).toBe(200);
    expect((await check(modpackId)).findings).toEqual([
      expect.objectContaining({ code: "id-clash", platformModId: "Listed" }),
    ]);
  });
});

describe("the check travels with the server file", () => {
  it("lists errors and warnings in the header and on the export's status", async () => {
    fake.items.set("9101", fakeMod("9101", { title: "Old\u2028build mod", builds: ["41"], requires: ["9199"] }));
    fake.items.set("9102", fakeMod("9102", { title: "Quiet", modIds: ["Q1"] }));
    const modpackId = await createModpack(service, owner, { name: "Header pack" });
    await addMod(modpackId, "9101");
    await addMod(modpackId, "9102");
    const quiet = await modIdOf("9102");
    await saveConfiguration(modpackId, {
      modsOrder: [await modIdOf("9101"), quiet],
      modConfig: { [quiet]: { selectedPlatformModIds: [] } },
    });

    const requested = await call("POST", `/modpacks/${modpackId}/server-file`, owner, { version: "42x" });
    const done = await waitForExport(service, owner, requested.json().exportId);
    expect(done.status).toBe("completed");
    const expectedCodes = [
      ["missing-requirement", "9101"],
      ["wrong-build", "9101"],
    ];
    expect(done.findings.map((finding: Finding) => [finding.code, finding.workshopId])).toEqual(expectedCodes);
    const live = await check(modpackId, "42x");
    expect(live.findings.filter((finding) => finding.severity !== "info")).toEqual(done.findings);

    const file: string = (await call("GET", `/modpacks/export/${done.exportId}/download`, owner)).body;
    const header = file.split("\n").filter((line) => line.startsWith("#"));
    const problems = header.filter((line) => /^# (ERROR|WARNING)/.test(line));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^# ERROR \(missing-requirement\): "Old build mod" \(workshop 9101\) requires/);
    expect(problems[1]).toMatch(/^# WARNING \(wrong-build\): "Old build mod" \(workshop 9101\) is tagged for Build 41/);
    expect(file).not.toContain("\u2028");
    expect(file.split("\n")).toContain("Mods=\\Mod9101");

    // The 41x file of the same pack has no wrong-build line.
    const older = await call("POST", `/modpacks/${modpackId}/server-file`, owner, { version: "41x" });
    const olderDone = await waitForExport(service, owner, older.json().exportId);
    expect(olderDone.findings.map((finding: Finding) => finding.code)).toEqual(["missing-requirement"]);
  });
});
