import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyName } from "../src/services/modpacks.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { addMembers } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { snapshot } from "./support/snapshot.js";
import { type SignedIn, signIn } from "./support/users.js";

let steam: FakeSteam;
let service: TestService;
let owner: SignedIn;
let stranger: SignedIn;

type Json = Record<string, unknown>;

async function call(who: SignedIn | null, method: "GET" | "POST" | "PUT" | "DELETE", url: string, body?: unknown) {
  const response = await service.app.inject({
    method,
    url,
    headers: { ...(who ? who.headers : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: response.statusCode, body: response.json() as Json };
}

/** A modpack of `owner` with three mods (one removed again), a custom order and id selections. */
async function seedModpack(options: { name: string; isPublic: boolean }) {
  const created = await call(owner, "POST", "/modpacks", {
    name: options.name,
    description: "Seeded",
    isPublic: options.isPublic,
    platformWorkshopUrl: "https://steamcommunity.com/sharedfiles/filedetails/?id=900",
  });
  expect(created.status).toBe(201);
  const id = String(created.body.id);
  const modIds: string[] = [];
  for (const workshopId of ["301", "302", "303"]) {
    const link = await call(owner, "POST", `/modpacks/${id}/mods`, { modAttribute: workshopId });
    expect(link.status).toBe(201);
    modIds.push(String(link.body.modId));
  }
  const removed = await call(owner, "DELETE", `/modpacks/${id}/mods/${modIds[2]}`);
  expect(removed.status).toBe(200);
  const [first, second] = modIds as [string, string];
  const saved = await call(owner, "PUT", `/modpacks/${id}/export-configuration`, {
    modsOrder: [second, first],
    modConfig: { [second]: { selectedPlatformModIds: ["Mod302"] }, [first]: { selectedPlatformModIds: [] } },
  });
  expect(saved.status).toBe(200);
  return { id, first, second };
}

beforeAll(async () => {
  steam = await startFakeSteam();
  for (const id of ["301", "302", "303"]) steam.items.set(id, fakeItem(id));
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url, WORKSHOP_MAX_RETRIES: "0" } });
  owner = await signIn(service, { name: "Dup Owner" });
  stranger = await signIn(service, { name: "Dup Stranger" });
});

afterAll(async () => {
  await service?.stop();
  await steam?.close();
});

describe("POST /modpacks/{id}/duplicate", () => {
  it("copies the active mods, their order and selections into a private modpack of the caller, and notifies them", async () => {
    const source = await seedModpack({ name: "Brita's Apocalypse", isPublic: true });
    const copy = await call(owner, "POST", `/modpacks/${source.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({
      name: "Brita's Apocalypse (copy)",
      description: "Seeded",
      platformUrl: "https://steamcommunity.com/sharedfiles/filedetails/?id=900",
      owner: owner.userId,
      isPublic: false,
      isVerified: false,
      isActive: true,
      members: [],
    });
    const copyId = String(copy.body.id);
    expect(copyId).not.toBe(source.id);

    const mods = await call(owner, "GET", `/modpacks/${copyId}/mods?limit=100`);
    expect((mods.body.data as Json[]).map((mod) => mod.id).sort()).toEqual([source.first, source.second].sort());
    const configuration = await call(owner, "GET", `/modpacks/${copyId}/export-configuration`);
    expect(configuration.body).toMatchObject({
      modsOrder: [source.second, source.first],
      modConfig: {
        [source.second]: { selectedPlatformModIds: ["Mod302"] },
        [source.first]: { selectedPlatformModIds: [] },
      },
    });

    const notifications = await call(owner, "GET", "/notifications?limit=5");
    const latest = (notifications.body.notifications as Json[])[0];
    expect(latest).toMatchObject({ title: "Modpack duplicated", type: "success" });
    expect(String(latest?.content)).toContain("Brita's Apocalypse (copy) is a copy of Brita's Apocalypse with 2 mods");
    expect(JSON.parse(String(latest?.metadata))).toMatchObject({ modpackId: copyId, sourceModpackId: source.id });

    const original = await call(owner, "GET", `/modpacks/${source.id}`);
    expect(original.body).toMatchObject({ name: "Brita's Apocalypse", isPublic: true });
  });

  it("keeps the load order of a modpack that never saved one", async () => {
    const created = await call(owner, "POST", "/modpacks", { name: "Unsaved order", isPublic: false });
    const id = String(created.body.id);
    for (const workshopId of ["303", "301", "302"]) {
      expect((await call(owner, "POST", `/modpacks/${id}/mods`, { modAttribute: workshopId })).status).toBe(201);
    }
    const order = async (modpackId: string) =>
      (await call(owner, "GET", `/modpacks/${modpackId}/export-configuration`)).body.modsOrder;
    const copy = await call(owner, "POST", `/modpacks/${id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(await order(String(copy.body.id))).toEqual(await order(id));
  });

  it("lets anyone who may read a public modpack copy it under a name of their choosing", async () => {
    const source = await seedModpack({ name: "Public pack", isPublic: true });
    const copy = await call(stranger, "POST", `/modpacks/${source.id}/duplicate`, { name: "My own take" });
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: "My own take", owner: stranger.userId, isPublic: false });
    const mine = await call(stranger, "GET", "/modpacks/my");
    expect((mine.body.data as Json[]).map((modpack) => modpack.id)).toContain(copy.body.id);
  });

  it.each([
    ["anonymous", null, undefined, 401],
    ["a stranger, on a private modpack", "stranger", undefined, 403],
    ["a name too short", "owner", { name: "ab" }, 400],
    ["a name of the wrong type", "owner", { name: 42 }, 400],
  ] as const)("refuses %s and writes nothing", async (_label, who, body, status) => {
    const source = await seedModpack({ name: "Private pack", isPublic: false });
    const caller = who === "owner" ? owner : who === "stranger" ? stranger : null;
    const before = await snapshot(service.runtime);
    const response = await call(caller, "POST", `/modpacks/${source.id}/duplicate`, body);
    expect(response.status).toBe(status);
    expect(await snapshot(service.runtime)).toEqual(before);
  });

  it("answers 404 for a modpack that does not exist", async () => {
    const response = await call(owner, "POST", "/modpacks/0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d/duplicate");
    expect(response.status).toBe(404);
  });
});

describe("the default name of a copy", () => {
  it.each([
    ["Pack", "Pack (copy)"],
    ["x".repeat(43), `${"x".repeat(43)} (copy)`],
    ["x".repeat(50), `${"x".repeat(43)} (copy)`],
    [`${"a".repeat(42)} b  c`, `${"a".repeat(42)} (copy)`],
    ["🧟".repeat(25), `${"🧟".repeat(21)} (copy)`],
  ])("of %j is %j", (name, expected) => {
    expect(copyName(name)).toBe(expected);
    expect(copyName(name).length).toBeLessThanOrEqual(50);
  });
});

describe("GET /modpacks/my", () => {
  it("counts the caller's own and shared modpacks exactly on every page, by offset and by cursor", async () => {
    const busy = await signIn(service, { name: "Busy Lister" });
    for (let index = 1; index <= 6; index++) {
      expect((await call(busy, "POST", "/modpacks", { name: `Mine ${index}`, isPublic: false })).status).toBe(201);
    }
    for (const name of ["Shared A", "Shared B"]) {
      const shared = await call(owner, "POST", "/modpacks", { name, isPublic: false });
      await addMembers(service, String(shared.body.id), [{ userId: busy.userId, permission: ["read"] }]);
    }
    await call(owner, "POST", "/modpacks", { name: "Not shared", isPublic: false });
    const list = async (query: string) => (await call(busy, "GET", `/modpacks/my?${query}`)).body;
    const names = (body: Json) => (body.data as Json[]).map((modpack) => modpack.name);
    const ids = (body: Json) => (body.data as Json[]).map((modpack) => modpack.id);

    const first = await list("limit=3&sortBy=name&sortOrder=asc");
    expect(names(first)).toEqual(["Mine 1", "Mine 2", "Mine 3"]);
    expect(first.pagination).toEqual({
      page: 1,
      limit: 3,
      total: 8,
      totalPages: 3,
      totalExact: true,
      nextCursor: expect.any(String),
    });
    const third = await list("limit=3&sortBy=name&sortOrder=asc&page=3");
    expect(names(third)).toEqual(["Shared A", "Shared B"]);
    expect(third.pagination).toMatchObject({ total: 8, nextCursor: null });
    const past = await list("limit=3&sortBy=name&sortOrder=asc&page=4");
    expect(past).toEqual({
      data: [],
      pagination: { page: 4, limit: 3, total: 8, totalPages: 3, totalExact: true, nextCursor: null },
    });
    expect((await list("search=shared")).pagination).toMatchObject({ total: 2 });

    const byPage = [first, await list("limit=3&sortBy=name&sortOrder=asc&page=2"), third].flatMap(ids);
    const byCursor: unknown[] = [];
    let body = first;
    for (;;) {
      byCursor.push(...ids(body));
      expect(body.pagination).toMatchObject({ total: 8 });
      const cursor = (body.pagination as Json).nextCursor;
      if (!cursor) break;
      body = await list(`limit=3&sortBy=name&sortOrder=asc&cursor=${encodeURIComponent(String(cursor))}`);
    }
    expect(byCursor).toEqual(byPage);
  });

  it("lists a modpack its owner is also a member of once, and counts it once", async () => {
    const joined = await signIn(service, { name: "Owner And Member" });
    const own = await call(joined, "POST", "/modpacks", { name: "Owned and joined", isPublic: false });
    await addMembers(service, String(own.body.id), [{ userId: joined.userId, permission: ["read"] }]);
    const body = (await call(joined, "GET", "/modpacks/my")).body;
    expect((body.data as Json[]).map((modpack) => modpack.name)).toEqual(["Owned and joined"]);
    expect(body.pagination).toMatchObject({ total: 1 });
  });
});

describe("GET /mods/{id}/modpacks", () => {
  /** A modpack of `owner` with the given workshop items among its mods; answers its id and the mods' ids. */
  async function packWith(name: string, isPublic: boolean, workshopIds: string[]) {
    const created = await call(owner, "POST", "/modpacks", { name, isPublic });
    expect(created.status).toBe(201);
    const modIds: string[] = [];
    for (const workshopId of workshopIds) {
      const link = await call(owner, "POST", `/modpacks/${created.body.id}/mods`, { modAttribute: workshopId });
      expect(link.status).toBe(201);
      modIds.push(String(link.body.modId));
    }
    return { id: String(created.body.id), modIds };
  }

  let used: string;
  let other: string;
  let privateOnly: string;

  beforeAll(async () => {
    for (const id of ["311", "312", "313"]) steam.items.set(id, fakeItem(id));
    const first = await packWith("Using Alpha", true, ["311", "312"]);
    [used, other] = first.modIds as [string, string];
    await packWith("Using Charlie", true, ["311"]);
    await packWith("Using Bravo", true, ["311"]);
    privateOnly = (await packWith("Using Private", false, ["311", "313"])).modIds[1]!;
    const archived = await packWith("Using Archived", true, ["311"]);
    expect((await call(owner, "DELETE", `/modpacks/${archived.id}`)).status).toBe(200);
    const dropped = await packWith("Using Dropped", true, ["311"]);
    expect((await call(owner, "DELETE", `/modpacks/${dropped.id}/mods/${used}`)).status).toBe(200);
  });

  const names = (body: Json) => (body.data as Json[]).map((modpack) => modpack.name);

  it("lists the public, active modpacks that still include the mod, to anyone, sorted and counted", async () => {
    const listed = await call(null, "GET", `/mods/${used}/modpacks?sortBy=name&sortOrder=asc`);
    expect(listed.status).toBe(200);
    expect(names(listed.body)).toEqual(["Using Alpha", "Using Bravo", "Using Charlie"]);
    expect(listed.body.pagination).toEqual({
      page: 1,
      limit: 10,
      total: 3,
      totalPages: 1,
      totalExact: true,
      nextCursor: null,
    });
    expect((listed.body.data as Json[])[0]).toMatchObject({ isPublic: true, isActive: true, owner: owner.userId });
    // Even the owner sees only public modpacks here.
    expect(names((await call(owner, "GET", `/mods/${used}/modpacks?sortBy=name&sortOrder=asc`)).body)).toHaveLength(3);
    expect(names((await call(null, "GET", `/mods/${other}/modpacks`)).body)).toEqual(["Using Alpha"]);
    expect(names((await call(null, "GET", `/mods/${used}/modpacks?search=bravo`)).body)).toEqual(["Using Bravo"]);
  });

  it("answers an empty page, not 404, for a mod of the catalogue that no public modpack includes", async () => {
    const listed = await call(owner, "GET", `/mods/${privateOnly}/modpacks`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      data: [],
      pagination: { page: 1, limit: 10, total: 0, totalPages: 0, totalExact: true, nextCursor: null },
    });
  });

  it("pages by offset and by cursor alike, and refuses a cursor of another mod's list", async () => {
    const query = "limit=2&sortBy=name&sortOrder=desc";
    const first = (await call(null, "GET", `/mods/${used}/modpacks?${query}`)).body;
    expect(names(first)).toEqual(["Using Charlie", "Using Bravo"]);
    expect(first.pagination).toMatchObject({ total: 3, totalPages: 2 });
    const cursor = encodeURIComponent(String((first.pagination as Json).nextCursor));
    const next = (await call(null, "GET", `/mods/${used}/modpacks?${query}&cursor=${cursor}`)).body;
    expect(names(next)).toEqual(["Using Alpha"]);
    expect(names((await call(null, "GET", `/mods/${used}/modpacks?${query}&page=2`)).body)).toEqual(["Using Alpha"]);
    const foreign = await call(null, "GET", `/mods/${other}/modpacks?${query}&cursor=${cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: { message: expect.stringMatching(/Invalid cursor/) } });
  });

  it.each([
    [
      "a mod the catalogue does not have",
      "/mods/00000000-0000-4000-8000-000000000000/modpacks",
      404,
      /^Mod not found$/,
    ],
    ["an id that is not a UUID", "/mods/not-a-uuid/modpacks", 400, /^Invalid input: id: Must be a UUID$/],
    ["an unknown sort", "/mods/{used}/modpacks?sortBy=owner", 400, /^Invalid input: sortBy: /],
    ["a limit past its range", "/mods/{used}/modpacks?limit=1000", 400, /^Invalid input: limit: /],
  ])("answers %s with %i and the error body", async (_case, path, status, message) => {
    const answer = await call(null, "GET", path.replace("{used}", used));
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error: { message: expect.stringMatching(message) } });
  });
});

describe("dates in answers", () => {
  it("are UTC with milliseconds and a Z, the stored microseconds cut, not rounded", async () => {
    const created = await call(owner, "POST", "/modpacks", { name: "Dated", isPublic: true });
    expect(created.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = String(created.body.id);
    await sql`update modpacks set created_at = '2026-01-02 03:04:05.678999+05:30', updated_at = '1999-12-31 23:59:59.9995+00' where id = ${id}`.execute(
      service.runtime.database.db,
    );
    const dates = { createdAt: "2026-01-01T21:34:05.678Z", updatedAt: "1999-12-31T23:59:59.999Z" };
    expect((await call(owner, "GET", `/modpacks/${id}`)).body).toMatchObject(dates);
    const listed = (await call(null, "GET", "/modpacks/public?search=Dated")).body.data as Json[];
    expect(listed).toEqual([expect.objectContaining(dates)]);
  });
});
