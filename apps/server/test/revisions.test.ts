import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordPendingInitialRevisions } from "../src/db/modpack-revisions.js";
import { type FakeSteam, fakeMod, startFakeSteam } from "./fixtures/steam-api.js";
import { createModpack, startImport, waitForImport } from "./support/modpacks.js";
import { insertModpack, insertMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let steam: FakeSteam;
let service: TestService;
let owner: SignedIn;
let member: SignedIn;
let stranger: SignedIn;
let workshopCounter = 5_100_000_000;

beforeAll(async () => {
  steam = await startFakeSteam();
  // With a key the client reads GetDetails, whose `children` are the items a mod requires.
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url, STEAM_API_KEY: "revisions-test-key" } });
  owner = await signIn(service, { name: "Owner" });
  member = await signIn(service, { name: "Member" });
  stranger = await signIn(service, { name: "Stranger" });
});
afterAll(async () => {
  await service.stop();
  await steam.close();
});

function call(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  who: SignedIn | { headers: Record<string, string> } | null,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method,
    url,
    headers: who ? who.headers : {},
    ...(payload === undefined ? {} : { payload }),
  });
}

/** A new workshop item on the Steam stand-in: its workshop id. */
function newItem(options: Parameters<typeof fakeMod>[1] = {}): string {
  workshopCounter += 1;
  const id = String(workshopCounter);
  steam.items.set(id, fakeMod(id, options));
  return id;
}

async function add(packId: string, workshopId: string, who: SignedIn = owner) {
  const response = await call("POST", `/modpacks/${packId}/mods`, who, { modAtribute: workshopId });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json() as { modId: string; dependenciesAdded: { modId: string }[] };
}

interface Summary {
  number: number;
  reason: string;
  author: { id: string; name: string } | null;
  counts: { added: number; removed: number; moved: number; selectionChanged: number };
}

async function revisions(packId: string, who: SignedIn = owner): Promise<Summary[]> {
  const response = await call("GET", `/modpacks/${packId}/revisions?limit=100`, who);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

async function current(packId: string): Promise<number> {
  return (await call("GET", `/modpacks/${packId}`, owner)).json().revision;
}

async function configuration(packId: string) {
  return (await call("GET", `/modpacks/${packId}/export-configuration`, owner)).json() as {
    modsOrder: string[];
    modConfig: Record<string, { selectedPlatformModIds: string[] }>;
  };
}

async function saveConfiguration(packId: string, body: object, who: SignedIn = owner) {
  const response = await call("PUT", `/modpacks/${packId}/export-configuration`, who, body);
  expect(response.statusCode, response.body).toBe(200);
}

/** Changes an item on the workshop and refreshes its catalogue row, as the mod update would. */
async function changeOnWorkshop(workshopId: string, options: Parameters<typeof fakeMod>[1]) {
  steam.items.set(workshopId, fakeMod(workshopId, options));
  const mod = (await call("GET", `/mods?search=${workshopId}`, owner)).json().data[0] as { id: string };
  const response = await call("POST", `/mods/${mod.id}/refresh`, owner);
  expect(response.statusCode, response.body).toBe(200);
}

describe("revisions", () => {
  it("records exactly one revision per change of the file's state, and none for the others", async () => {
    const packId = await createModpack(service, owner, { name: "History" });
    const [d, c] = [newItem({ modIds: ["LibD"] }), newItem({ modIds: ["LibC"] })];
    const b = newItem({ modIds: ["LibB"], requires: [c] });
    const a = newItem({ modIds: ["ModA", "ModA_extra"], requires: [b, d] });
    const e = newItem({ modIds: ["ModE"] });
    let modA = "";
    let modE = "";
    const steps: { name: string; run: () => Promise<unknown>; reason?: string; counts?: Partial<Summary["counts"]> }[] =
      [
        {
          name: "a mod with three requirements",
          run: async () => {
            modA = (await add(packId, a)).modId;
          },
          reason: "mods-added",
          counts: { added: 4 },
        },
        { name: "the same mod again", run: () => add(packId, a) },
        { name: "a new name", run: () => call("PATCH", `/modpacks/${packId}`, owner, { name: "Renamed" }) },
        {
          name: "a member",
          run: () =>
            call("POST", `/modpacks/${packId}/members`, owner, { userId: member.userId, permission: ["read"] }),
        },
        {
          name: "one more mod",
          run: async () => {
            modE = (await add(packId, e)).modId;
          },
          reason: "mods-added",
          counts: { added: 1 },
        },
        {
          name: "the last mod moved first",
          run: async () => {
            const { modsOrder } = await configuration(packId);
            await saveConfiguration(packId, {
              modsOrder: [modE, ...modsOrder.filter((id) => id !== modE)],
              modConfig: {},
            });
          },
          reason: "configuration",
          counts: { moved: 1 },
        },
        {
          name: "the same configuration saved again",
          run: async () => saveConfiguration(packId, await configuration(packId)),
        },
        {
          name: "one id deselected",
          run: async () => {
            const saved = await configuration(packId);
            await saveConfiguration(packId, {
              modsOrder: saved.modsOrder,
              modConfig: { ...saved.modConfig, [modA]: { selectedPlatformModIds: ["ModA"] } },
            });
          },
          reason: "configuration",
          counts: { selectionChanged: 1 },
        },
        {
          name: "a workshop update that keeps the ids",
          run: () => changeOnWorkshop(e, { modIds: ["ModE"], title: "Mod E, updated", timeUpdated: 1_900_000_000 }),
        },
        {
          name: "a mod removed",
          run: () => call("DELETE", `/modpacks/${packId}/mods/${modE}`, owner),
          reason: "mods-removed",
          counts: { removed: 1 },
        },
      ];
    expect(await current(packId)).toBe(0);
    expect(await revisions(packId)).toEqual([]);
    let expected = 0;
    for (const step of steps) {
      await step.run();
      if (step.reason) expected += 1;
      const list = await revisions(packId);
      expect(list.length, step.name).toBe(expected);
      expect(await current(packId), step.name).toBe(expected);
      if (!step.reason) continue;
      expect(list[0], step.name).toMatchObject({
        number: expected,
        reason: step.reason,
        author: { id: owner.userId, name: "Owner" },
        counts: { added: 0, removed: 0, moved: 0, selectionChanged: 0, ...step.counts },
      });
    }
    // Newest first, gapless.
    expect((await revisions(packId)).map((revision) => revision.number)).toEqual([5, 4, 3, 2, 1]);
  });

  it("records one revision for a whole import, and none for an import that links nothing new", async () => {
    const ids = Array.from({ length: 1_200 }, () => newItem());
    steam.collections.set("5199000001", ids);
    const packId = await createModpack(service, owner);
    await startImport(service, owner, packId, "5199000001");
    expect((await waitForImport(service, owner, packId, 120_000)).status).toBe("completed");
    const list = await revisions(packId);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ number: 1, reason: "import", counts: { added: 1_200 } });
    await startImport(service, owner, packId, "5199000001");
    expect((await waitForImport(service, owner, packId, 120_000)).status).toBe("completed");
    expect(await revisions(packId)).toHaveLength(1);
  });

  it("gives concurrent writers distinct, gapless numbers, each revision holding its own change", async () => {
    const packId = await createModpack(service, owner);
    const items = Array.from({ length: 12 }, () => newItem());
    await Promise.all(items.map((item) => add(packId, item)));
    const list = await revisions(packId);
    expect(list.map((revision) => revision.number)).toEqual(Array.from({ length: 12 }, (_, index) => 12 - index));
    for (const revision of list)
      expect(revision.counts).toEqual({ added: 1, removed: 0, moved: 0, selectionChanged: 0 });
  });

  it("records a workshop revision in every pack whose file a catalogue change alters, keeping whole selections", async () => {
    const renamed = newItem({ modIds: ["OldName", "Second"] });
    const packs = [
      await createModpack(service, owner),
      await createModpack(service, owner),
      await createModpack(service, owner),
    ];
    let modId = "";
    for (const packId of packs) modId = (await add(packId, renamed)).modId;
    // The second pack saved a selection of every id, the third of one of them.
    await saveConfiguration(packs[1]!, {
      modsOrder: [modId],
      modConfig: { [modId]: { selectedPlatformModIds: ["OldName", "Second"] } },
    });
    await saveConfiguration(packs[2]!, {
      modsOrder: [modId],
      modConfig: { [modId]: { selectedPlatformModIds: ["Second"] } },
    });
    const before = await Promise.all(packs.map(current));

    await changeOnWorkshop(renamed, { modIds: ["NewName", "Second"] });
    // The first two write the renamed id; the third wrote and writes `Second` alone: its state is the same.
    for (const [index, packId] of packs.entries()) {
      if (index === 2) {
        expect(await current(packId)).toBe(before[index]);
        continue;
      }
      const list = await revisions(packId);
      expect(list[0], `pack ${index}`).toMatchObject({
        number: before[index]! + 1,
        reason: "workshop",
        author: null,
        counts: { added: 0, removed: 0, moved: 0, selectionChanged: 1 },
      });
    }
    const files = await Promise.all(
      packs.map(
        async (packId) =>
          (await call("GET", `/modpacks/${packId}/server-file?version=41x&format=json`, owner)).json().mods,
      ),
    );
    expect(files).toEqual([["NewName", "Second"], ["NewName", "Second"], ["Second"]]);

    // A refresh that changes nothing the file reads records nothing.
    const after = await Promise.all(packs.map(current));
    await changeOnWorkshop(renamed, { modIds: ["NewName", "Second"], title: "Renamed title" });
    expect(await Promise.all(packs.map(current))).toEqual(after);
  });

  it("gives a pack that held mods before revisions began its first revision, reason initial", async () => {
    const { db } = service.runtime.database;
    const mods = await insertMods(service, [
      { workshopId: "5199100001", name: "Old one", platformModIds: ["OldOne"] },
      { workshopId: "5199100002", name: "Old two", platformModIds: ["OldTwo"] },
    ]);
    // Written as the packs of an older version were: links and no revision.
    const packId = await insertModpack(service, { ownerId: owner.userId, modIds: mods.map((mod) => mod.id) });
    const empty = await insertModpack(service, { ownerId: owner.userId });
    expect(await current(packId)).toBe(0);
    await db.insertInto("pendingInitialRevisions").values({ modpackId: packId }).execute();
    expect(await recordPendingInitialRevisions(db)).toBe(1);
    expect(await recordPendingInitialRevisions(db)).toBe(0);
    expect(await revisions(packId)).toMatchObject([
      { number: 1, reason: "initial", author: null, counts: { added: 2 } },
    ]);
    expect(await current(empty)).toBe(0);
  });

  it("starts a duplicate's history at 1, and an empty duplicate's at 0", async () => {
    const source = await createModpack(service, owner);
    await add(source, newItem());
    const copy = await call("POST", `/modpacks/${source}/duplicate`, owner, {});
    expect(copy.statusCode, copy.body).toBeLessThan(300);
    expect(copy.json().revision).toBe(1);
    expect(await revisions(copy.json().id)).toMatchObject([{ number: 1, reason: "duplicate", counts: { added: 1 } }]);
    const empty = await call("POST", `/modpacks/${await createModpack(service, owner)}/duplicate`, owner, {});
    expect(empty.json().revision).toBe(0);
  });

  it("stores rows for what changed, not for the pack's size", async () => {
    const packId = await createModpack(service, owner);
    const items = Array.from({ length: 60 }, () => newItem());
    steam.collections.set("5199000002", items);
    await startImport(service, owner, packId, "5199000002");
    await waitForImport(service, owner, packId);
    const { modsOrder } = await configuration(packId);
    let order = modsOrder;
    for (let move = 0; move < 40; move += 1) {
      order = [...order.slice(1), order[0]!];
      await saveConfiguration(packId, { modsOrder: order, modConfig: {} });
    }
    expect(await current(packId)).toBe(41);
    const rows = await service.runtime.database.db
      .selectFrom("modpackRevisionMods")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("modpackId", "=", packId)
      .executeTakeFirstOrThrow();
    // One entry per mod at the import, then one per move.
    expect(Number(rows.count)).toBe(60 + 40);
    const file = await call("GET", `/modpacks/${packId}/server-file?version=41x&format=json`, owner);
    const pinned = await call("GET", `/modpacks/${packId}/server-file?version=41x&format=json&revision=41`, owner);
    expect(pinned.json().mods).toEqual(file.json().mods);
  });
});

describe("GET /modpacks/{id}/revisions/compare", () => {
  it("lists what was added, removed, moved, reselected and updated on the workshop, in either direction", async () => {
    const packId = await createModpack(service, owner);
    const [a, b, c, d, e] = [
      newItem({ modIds: ["A1", "A2"], timeUpdated: 1_700_000_000 }),
      newItem({ modIds: ["B"], timeUpdated: 1_700_000_000 }),
      newItem({ modIds: ["C"], timeUpdated: 1_700_000_000 }),
      newItem({ modIds: ["D"], timeUpdated: 1_700_000_000 }),
      newItem({ modIds: ["E"], timeUpdated: 1_700_000_000 }),
    ];
    const ids: Record<string, string> = {};
    for (const [name, item] of Object.entries({ a, b, c, e })) ids[name] = (await add(packId, item)).modId;
    const base = await current(packId);
    // From `base` [a, b, c, e]: d added, b removed, c moved first, a's ids reduced: [c, a, e, d].
    ids.d = (await add(packId, d)).modId;
    await call("DELETE", `/modpacks/${packId}/mods/${ids.b}`, owner);
    await saveConfiguration(packId, {
      modsOrder: [ids.c, ids.a, ids.e, ids.d],
      modConfig: { [ids.a!]: { selectedPlatformModIds: ["A1"] } },
    });
    // Then a is updated on the workshop, keeping its ids: no revision.
    await changeOnWorkshop(a, { modIds: ["A1", "A2"], timeUpdated: 1_800_000_000 });
    const last = await current(packId);
    expect(last).toBe(base + 3);

    const ref = (name: string, item: string) => ({ id: ids[name], workshopId: item });
    const table = [
      {
        query: `from=${base}&to=${last}`,
        expected: {
          from: base,
          to: last,
          added: [expect.objectContaining(ref("d", d))],
          removed: [expect.objectContaining(ref("b", b))],
          moved: [expect.objectContaining({ ...ref("c", c), fromPosition: 3, toPosition: 1 })],
          selectionChanged: [
            expect.objectContaining({
              ...ref("a", a),
              before: { "41x": ["A1", "A2"], "42x": ["A1", "A2"] },
              after: { "41x": ["A1"], "42x": ["A1"] },
            }),
          ],
          workshopUpdates: [],
        },
      },
      {
        // Backwards: one mod moves back (which one of c and a is a tie), b comes back, d goes.
        query: `from=${last}&to=${base}`,
        expected: {
          from: last,
          to: base,
          added: [expect.objectContaining(ref("b", b))],
          removed: [expect.objectContaining(ref("d", d))],
          moved: [expect.objectContaining({ fromPosition: expect.any(Number), toPosition: expect.any(Number) })],
          selectionChanged: [
            expect.objectContaining({ ...ref("a", a), after: { "41x": ["A1", "A2"], "42x": ["A1", "A2"] } }),
          ],
          workshopUpdates: [],
        },
      },
      {
        // `to` left out: the current revision, with the catalogue's dates now.
        query: `from=${base}`,
        expected: expect.objectContaining({
          to: last,
          workshopUpdates: [
            { ...ref("a", a), name: expect.any(String), timeUpdated: new Date(1_800_000_000_000).toISOString() },
          ],
        }),
      },
      {
        query: "from=0&to=1",
        expected: expect.objectContaining({
          from: 0,
          to: 1,
          removed: [],
          added: [expect.objectContaining(ref("a", a))],
        }),
      },
    ];
    for (const row of table) {
      const response = await call("GET", `/modpacks/${packId}/revisions/compare?${row.query}`, owner);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json(), row.query).toEqual(row.expected);
      expect(response.headers.etag).toBeTypeOf("string");
    }
    for (const query of [`from=${last + 1}`, `from=1&to=${last + 1}`]) {
      expect((await call("GET", `/modpacks/${packId}/revisions/compare?${query}`, owner)).statusCode, query).toBe(404);
    }
    for (const query of ["", "from=-1", "from=x", "from=1.5", "from=1&to=0x1"]) {
      expect((await call("GET", `/modpacks/${packId}/revisions/compare?${query}`, owner)).statusCode, query).toBe(400);
    }
  });
});

describe("POST /modpacks/{id}/revisions/{number}/restore", () => {
  it("gives back a revision's links, order and selection as a new revision, and records nothing when they are the pack's", async () => {
    const packId = await createModpack(service, owner);
    const [a, b, gone] = [
      newItem({ modIds: ["RA1", "RA2"] }),
      newItem({ modIds: ["RB"] }),
      newItem({ modIds: ["Gone"] }),
    ];
    const ids = {
      a: (await add(packId, a)).modId,
      b: (await add(packId, b)).modId,
      gone: (await add(packId, gone)).modId,
    };
    await saveConfiguration(packId, {
      modsOrder: [ids.b, ids.gone, ids.a],
      modConfig: { [ids.a]: { selectedPlatformModIds: ["RA2"] } },
    });
    const target = await current(packId);
    const pinned = await call("GET", `/modpacks/${packId}/server-file?version=41x&revision=${target}`, owner);
    // Later: two mods removed, the order reset, and the item gone from the workshop.
    await call("DELETE", `/modpacks/${packId}/mods/${ids.gone}`, owner);
    await call("DELETE", `/modpacks/${packId}/mods/${ids.b}`, owner);
    await saveConfiguration(packId, { modsOrder: [ids.a], modConfig: {} });
    steam.items.delete(gone);
    const goneMod = (await call("GET", `/mods?search=${gone}`, owner)).json().data[0].id as string;
    await call("POST", `/mods/${goneMod}/refresh`, owner);

    const restored = await call("POST", `/modpacks/${packId}/revisions/${target}/restore`, owner);
    expect(restored.statusCode, restored.body).toBe(201);
    const number = await current(packId);
    expect(restored.json()).toMatchObject({ number, reason: "restore", author: { id: owner.userId } });
    expect(restored.json().mods.map((mod: { id: string }) => mod.id)).toEqual([ids.b, ids.gone, ids.a]);
    const file = await call("GET", `/modpacks/${packId}/server-file?version=41x`, owner);
    expect(file.body.split("\n").filter((line) => !line.startsWith("#"))).toEqual(
      pinned.body.split("\n").filter((line) => !line.startsWith("#")),
    );
    const check = (await call("GET", `/modpacks/${packId}/check?version=41x`, owner)).json();
    expect(check.findings).toContainEqual(expect.objectContaining({ code: "unavailable", modId: ids.gone }));

    const again = await call("POST", `/modpacks/${packId}/revisions/${target}/restore`, owner);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().number).toBe(number);
    expect(await current(packId)).toBe(number);
  });

  it("is for the owner and members holding add-mod, remove-mod and configure", async () => {
    const packId = await createModpack(service, owner);
    await add(packId, newItem());
    const editor = await signIn(service);
    const partial = await signIn(service);
    for (const [who, permission] of [
      [editor, ["read", "add-mod", "remove-mod", "configure"]],
      [partial, ["read", "add-mod", "configure"]],
    ] as const) {
      const response = await call("POST", `/modpacks/${packId}/members`, owner, { userId: who.userId, permission });
      expect(response.statusCode, response.body).toBeLessThan(300);
    }
    const table = [
      { who: null, status: 401 },
      { who: stranger, status: 403 },
      { who: partial, status: 403 },
      { who: editor, status: 200 },
      { who: owner, status: 200 },
    ];
    for (const row of table) {
      const response = await call("POST", `/modpacks/${packId}/revisions/1/restore`, row.who);
      expect(response.statusCode, `${row.who?.userId ?? "anonymous"}: ${response.body}`).toBe(row.status);
    }
    expect((await call("POST", `/modpacks/${packId}/revisions/9/restore`, owner)).statusCode).toBe(404);
  });
});

describe("a server file pinned to a revision", () => {
  it("is the same bytes before and after the catalogue changes a linked mod's ids, and names its revision", async () => {
    const packId = await createModpack(service, owner, { name: "Pinned" });
    const item = newItem({ modIds: ["PinnedId"] });
    await add(packId, item);
    const forms = [
      "version=41x",
      "version=42x&format=json",
      "version=42x&format=env&image=danixu",
      "version=42x&idForm=plain",
    ];
    const before = await Promise.all(
      forms.map((form) => call("GET", `/modpacks/${packId}/server-file?${form}&revision=1`, owner)),
    );
    for (const response of before) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers["modpack-revision"]).toBe("1");
    }
    expect(before[0]!.body).toBe(
      `# Modpack Collection Service\n# Modpack: ${packId} at revision 1\n# Game version: 41x\nMods=PinnedId\nWorkshopItems=${item}\nMap=Muldraugh, KY\n`,
    );

    await changeOnWorkshop(item, { modIds: ["RenamedId"] });
    await call("PATCH", `/modpacks/${packId}`, owner, { name: "Pinned, renamed" });
    expect(await current(packId)).toBe(2);
    const after = await Promise.all(
      forms.map((form) => call("GET", `/modpacks/${packId}/server-file?${form}&revision=1`, owner)),
    );
    for (const [index, response] of after.entries()) {
      expect(response.body, forms[index]).toBe(before[index]!.body);
      expect(response.headers.etag).toBe(before[index]!.headers.etag);
    }
    const now = await call("GET", `/modpacks/${packId}/server-file?version=41x`, owner);
    expect(now.headers["modpack-revision"]).toBe("2");
    expect(now.body).toContain("Mods=RenamedId\n");

    const patch = await service.app.inject({
      method: "POST",
      url: `/modpacks/${packId}/server-file/patch?version=41x&revision=1`,
      headers: { ...owner.headers, "content-type": "text/plain" },
      payload: "PVP=true\nMods=Other\n",
    });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.body).toContain("Mods=PinnedId\n");
    expect(patch.headers["modpack-revision"]).toBe("1");
    for (const number of [0, 3, 99]) {
      const response = await call("GET", `/modpacks/${packId}/server-file?version=41x&revision=${number}`, owner);
      expect(response.statusCode, `revision ${number}`).toBe(number === 0 ? 400 : 404);
    }
  });
});

describe("who may read the history", () => {
  it("answers owner, members, tokens and the public as the pack's read rule says", async () => {
    const privatePack = await createModpack(service, owner);
    await add(privatePack, newItem());
    const publicPack = await createModpack(service, owner, { isPublic: true });
    await add(publicPack, newItem());
    await call("POST", `/modpacks/${privatePack}/members`, owner, { userId: member.userId, permission: ["read"] });
    const token = async (body: object) => {
      const response = await call("POST", "/auth/tokens", owner, { name: "history", ...body });
      expect(response.statusCode, response.body).toBe(201);
      return { headers: { authorization: `Bearer ${response.json().token}` } };
    };
    const readToken = await token({ scopes: ["read"] });
    const boundToken = await token({ scopes: ["read"], modpackIds: [privatePack] });
    const otherToken = await token({ scopes: ["read"], modpackIds: [publicPack] });
    const table: {
      name: string;
      who: SignedIn | { headers: Record<string, string> } | null;
      pack: string;
      status: number;
    }[] = [
      { name: "owner", who: owner, pack: privatePack, status: 200 },
      { name: "member", who: member, pack: privatePack, status: 200 },
      { name: "stranger", who: stranger, pack: privatePack, status: 403 },
      { name: "anonymous", who: null, pack: privatePack, status: 401 },
      { name: "read token", who: readToken, pack: privatePack, status: 200 },
      { name: "pack-bound token", who: boundToken, pack: privatePack, status: 200 },
      { name: "token bound to another pack", who: otherToken, pack: privatePack, status: 403 },
      { name: "anonymous, public pack", who: null, pack: publicPack, status: 200 },
      { name: "stranger, public pack", who: stranger, pack: publicPack, status: 200 },
    ];
    for (const row of table) {
      for (const path of ["revisions", "revisions/1", "revisions/compare?from=0"]) {
        const response = await call("GET", `/modpacks/${row.pack}/${path}`, row.who);
        expect(response.statusCode, `${row.name} ${path}: ${response.body}`).toBe(row.status);
        if (row.status === 401) expect(response.json()).toEqual({ message: "Unauthorized" });
        if (row.status === 200) expect(response.headers.etag).toBeTypeOf("string");
      }
      const file = await call("GET", `/modpacks/${row.pack}/server-file?version=42x&revision=1`, row.who);
      expect(file.statusCode, `${row.name} pinned file`).toBe(row.status);
    }
    // A read-only token changes nothing.
    const refused = await call("POST", `/modpacks/${privatePack}/revisions/1/restore`, boundToken);
    expect(refused.statusCode).toBe(403);
    expect((await call("GET", `/modpacks/${privatePack}/revisions/2`, owner)).statusCode).toBe(404);
  });
});
