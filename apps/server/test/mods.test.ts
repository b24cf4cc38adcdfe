import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertWorkshopItems } from "../src/db/mods.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { statementsOf } from "./support/query-count.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { workshopItem, workshopUrl } from "./support/workshop.js";

let fake: FakeSteam;
let service: TestService;
let user: SignedIn;
let stranger: SignedIn;
let admin: SignedIn;

function post(url: string, headers: Record<string, string> | undefined, payload?: unknown) {
  return service.app.inject({
    method: "POST",
    url,
    ...(headers ? { headers } : {}),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

function get(url: string, headers?: Record<string, string>) {
  return service.app.inject({ method: "GET", url, ...(headers ? { headers } : {}) });
}

beforeAll(async () => {
  fake = await startFakeSteam();
  service = await startTestService({ env: { WORKSHOP_API_URL: fake.url } });
  user = await signIn(service);
  stranger = await signIn(service);
  admin = await signIn(service, { role: "admin" });
});

afterAll(async () => {
  await service?.stop();
  await fake?.close();
});

describe("POST /mods", () => {
  it("adds a workshop item by URL with its in-game ids, map folders and tags (201)", async () => {
    fake.items.set(
      "1001",
      fakeItem("1001", {
        title: "Alpha Weapons",
        description: "[h1]Alpha[/h1]\nWorkshop ID: 1001\nMod ID: Alpha;AlphaExtra\nMap Folder: AlphaMap",
        tags: ["Build 42", "Weapons"],
        timeUpdated: 1_750_000_000,
      }),
    );
    const response = await post("/mods", user.headers, { modAtribute: workshopUrl("1001") });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      workshopId: "1001",
      name: "Alpha Weapons",
      platformModId: ["Alpha", "AlphaExtra"],
      mapFolders: ["AlphaMap"],
      requiredWorkshopIds: [],
      tags: ["Build 42", "Weapons"],
      avatarUrl: fake.previewUrl("1001"),
      isActive: true,
      timeUpdated: new Date(1_750_000_000 * 1000).toISOString(),
      created: true,
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.description).toContain("Workshop ID: 1001");
  });

  it("adds a workshop item by id (201), and answers 200 created:false for one already there", async () => {
    fake.items.set("1002", fakeItem("1002"));
    const first = await post("/mods", user.headers, { modAtribute: "1002" });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ workshopId: "1002", platformModId: ["Mod1002"], created: true });

    const calls = fake.calls.length;
    const again = await post("/mods", user.headers, { modAtribute: workshopUrl("1002") });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id: first.json().id, created: false });
    const byId = await post("/mods", user.headers, { modAtribute: " 1002 " });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toMatchObject({ id: first.json().id, created: false });
    expect(fake.calls.length).toBe(calls);
  });

  it("accepts the modAttribute spelling too", async () => {
    fake.items.set("1003", fakeItem("1003"));
    const response = await post("/mods", user.headers, {
      modAttribute: "http://www.steamcommunity.com/workshop/filedetails/?id=1003",
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ workshopId: "1003", created: true });
  });

  it("refuses a collection, another game's item, a missing and a banned item with 422", async () => {
    fake.collections.set("2001", ["1001", "1002"]);
    fake.items.set("2002", fakeItem("2002", { consumerAppId: 440 }));
    fake.items.set("2004", fakeItem("2004", { banned: true }));
    const cases: [string, string][] = [
      ["2001", "Workshop item 2001 is a collection; import it with POST /modpacks/{id}/import"],
      ["2002", "Workshop item 2002 is not a Project Zomboid item"],
      ["2003", "Workshop item 2003 does not exist or is not available"],
      ["2004", "Workshop item 2004 does not exist or is not available"],
    ];
    for (const [id, message] of cases) {
      const response = await post("/mods", user.headers, { modAtribute: workshopUrl(id) });
      expect(response.statusCode, id).toBe(422);
      expect(response.json()).toEqual({ error: { message, code: "UNPROCESSABLE_CONTENT" } });
    }
    const list = await get("/mods?search=200");
    expect(list.json().pagination.total).toBe(0);
  });

  it("answers 502 when the workshop keeps failing, without leaking where it called", async () => {
    fake.items.set("1004", fakeItem("1004"));
    fake.failNextFor("1004", 4, "500");
    const response = await post("/mods", user.headers, { modAtribute: "1004" });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({
      error: { message: "The Steam Workshop could not be reached; try again", code: "BAD_GATEWAY" },
    });
    expect(response.body).not.toContain("127.0.0.1");
    expect(response.body).not.toContain("ISteamRemoteStorage");

    const retried = await post("/mods", user.headers, { modAtribute: "1004" });
    expect(retried.statusCode).toBe(201);
  });

  it("refuses a URL that is not a workshop URL, and an in-game id, with 422", async () => {
    const other = await post("/mods", user.headers, {
      modAtribute: "https://example.com/sharedfiles/filedetails/?id=1001",
    });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({ error: { message: "Not a Steam Workshop URL", code: "UNPROCESSABLE_CONTENT" } });

    const inGame = await post("/mods", user.headers, { modAtribute: "Alpha" });
    expect(inGame.statusCode).toBe(422);
    expect(inGame.json()).toEqual({ error: { message: "Give a workshop URL or id", code: "UNPROCESSABLE_CONTENT" } });
  });

  it("answers 400 with issues for an empty or missing reference", async () => {
    for (const payload of [{}, { modAtribute: "" }, { modAtribute: "   " }, undefined]) {
      const response = await post("/mods", user.headers, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      const body = response.json();
      expect(body.error.code).toBe("BAD_REQUEST");
      expect(body.error.issues.length).toBeGreaterThan(0);
    }
  });

  it("needs a signed-in caller", async () => {
    const response = await post("/mods", undefined, { modAtribute: "1001" });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ message: "Unauthorized" });
  });
});

describe("GET /mods", () => {
  const seeded = 30;
  const seededIds: string[] = [];

  beforeAll(async () => {
    const items = Array.from({ length: seeded }, (_, index) => {
      const n = index + 1;
      const tags = [
        ...(n % 2 === 0 ? ["seed-a"] : []),
        ...(n % 3 === 0 ? ["seed-b"] : []),
        ...(n % 5 === 0 ? ["seed-c"] : []),
        ...(n === 1 ? ["seed-z", "seed-y"] : []),
      ];
      return workshopItem(String(5000 + n), {
        title: `Seeded Mod ${String(n).padStart(2, "0")}`,
        description: `Seed description ${n}`,
        platformModIds: [`SeedMod${n}`],
        tags,
      });
    });
    const rows = await upsertWorkshopItems(service.runtime.database.db, items);
    expect(rows).toHaveLength(seeded);
    const byWorkshopId = new Map(rows.map((row) => [row.workshopId, row.id]));
    for (let n = 1; n <= seeded; n++) seededIds.push(byWorkshopId.get(String(5000 + n))!);
  });

  it("pages with the envelope and totalPages, 20 a page by default, by name", async () => {
    const first = await get("/mods?search=Seeded");
    expect(first.statusCode).toBe(200);
    const body = first.json();
    // The page stopped at its 21st match: the total of the 30 is the planner's estimate.
    expect(body.pagination).toEqual({
      page: 1,
      limit: 20,
      total: expect.any(Number),
      totalPages: Math.ceil(body.pagination.total / 20),
      totalExact: false,
      nextCursor: expect.any(String),
    });
    expect(body.pagination.total).toBeGreaterThan(20);
    expect(body.data).toHaveLength(20);
    expect(body.data[0]).toMatchObject({ name: "Seeded Mod 01", workshopId: "5001", platformModId: ["SeedMod1"] });
    expect(body.data[0].avatarUrl).toBe("");
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        "avatarUrl",
        "buildModIds",
        "createdAt",
        "description",
        "id",
        "isActive",
        "mapFolders",
        "name",
        "platformModId",
        "requiredWorkshopIds",
        "tags",
        "timeUpdated",
        "updatedAt",
        "workshopId",
      ].sort(),
    );

    const last = await get("/mods?search=Seeded&limit=7&page=5");
    expect(last.json().pagination).toEqual({
      page: 5,
      limit: 7,
      total: 30,
      totalPages: 5,
      totalExact: true,
      nextCursor: null,
    });
    expect(last.json().data.map((mod: { name: string }) => mod.name)).toEqual(["Seeded Mod 29", "Seeded Mod 30"]);

    const past = await get("/mods?search=Seeded&limit=7&page=9");
    expect(past.statusCode).toBe(200);
    expect(past.json()).toEqual({
      data: [],
      pagination: { page: 9, limit: 7, total: 30, totalPages: 5, totalExact: true, nextCursor: null },
    });

    const desc = await get("/mods?search=Seeded&sortBy=name&sortOrder=desc&limit=2");
    expect(desc.json().data.map((mod: { name: string }) => mod.name)).toEqual(["Seeded Mod 30", "Seeded Mod 29"]);
  });

  it("searches names case-insensitively, in-game ids exactly, and treats % and _ literally", async () => {
    const byName = await get("/mods?search=%20seeded%20mod%201");
    expect(byName.json().pagination.total).toBe(10);

    const byInGameId = await get("/mods?search=SeedMod7");
    expect(byInGameId.json().data.map((mod: { workshopId: string }) => mod.workshopId)).toEqual(["5007"]);

    const byWorkshopId = await get("/mods?search=5017");
    expect(byWorkshopId.json().data.map((mod: { workshopId: string }) => mod.workshopId)).toEqual(["5017"]);

    const byDescription = await get("/mods?search=seed%20description%2030");
    expect(byDescription.json().data.map((mod: { workshopId: string }) => mod.workshopId)).toEqual(["5030"]);

    expect((await get("/mods?search=%25")).json().pagination.total).toBe(0);
    expect((await get("/mods?search=Seeded_Mod")).json().pagination.total).toBe(0);
  });

  it("filters by any of the given tags, comma-separated or repeated", async () => {
    // Divisible by 3 or by 5 among 1..30: 10 + 6 - 2.
    const comma = await get("/mods?tags=seed-b,seed-c&limit=100");
    expect(comma.json().pagination.total).toBe(14);
    const repeated = await get("/mods?tags=seed-b&tags=seed-c&limit=100");
    expect(repeated.json().pagination.total).toBe(14);
    expect(repeated.json().data.map((mod: { id: string }) => mod.id)).toEqual(
      comma.json().data.map((mod: { id: string }) => mod.id),
    );
    const combined = await get("/mods?tags=seed-c&search=Seeded%20Mod%201");
    expect(combined.json().data.map((mod: { name: string }) => mod.name)).toEqual(["Seeded Mod 10", "Seeded Mod 15"]);
    expect((await get("/mods?tags=no-such-tag")).json().pagination.total).toBe(0);
  });

  it("rejects page and limit out of range with 400", async () => {
    for (const query of ["limit=0", "limit=101", "page=0", "page=abc", "limit=2.5", "sortBy=size"]) {
      const response = await get(`/mods?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe("BAD_REQUEST");
      expect(response.json().error.issues.length).toBeGreaterThan(0);
    }
    expect((await get("/mods?limit=100")).statusCode).toBe(200);
  });

  it("keeps a modpack's active mods with modpackId, only for those who may read it", async () => {
    const created = await post("/modpacks", user.headers, { name: "Private pack" });
    expect(created.statusCode).toBe(201);
    const modpackId: string = created.json().id;
    const { db } = service.runtime.database;
    await db
      .insertInto("modpackMods")
      .values([
        { modpackId, modId: seededIds[0]!, addedBy: user.userId },
        { modpackId, modId: seededIds[1]!, addedBy: user.userId },
        { modpackId, modId: seededIds[2]!, addedBy: user.userId, isActive: false },
      ])
      .execute();

    const url = `/mods?modpackId=${modpackId}`;
    const owner = await get(url, user.headers);
    expect(owner.statusCode).toBe(200);
    expect(owner.json().pagination.total).toBe(2);
    expect(owner.json().data.map((mod: { id: string }) => mod.id)).toEqual([seededIds[0], seededIds[1]]);

    // In either order (by name the page is cut from the modpack's links, otherwise from its mods).
    const orders = ["", "&sortBy=name&search=Mod", "&sortBy=createdAt", "&sortBy=updatedAt&search=Mod"];
    for (const order of orders) {
      for (const headers of [undefined, stranger.headers]) {
        const refused = await get(`${url}${order}`, headers);
        expect(refused.statusCode).toBe(404);
        expect(refused.json()).toEqual({ error: { message: "Modpack not found", code: "NOT_FOUND" } });
      }
    }
    // Past the end of a visible modpack is an empty page, not 404.
    const past = await get(`${url}&page=3`, user.headers);
    expect(past.statusCode).toBe(200);
    expect(past.json().pagination).toEqual({
      page: 3,
      limit: 20,
      total: 2,
      totalPages: 1,
      totalExact: true,
      nextCursor: null,
    });

    await db
      .insertInto("modpackMembers")
      .values({ modpackId, userId: stranger.userId, permission: ["read"] })
      .execute();
    expect((await get(url, stranger.headers)).json().pagination.total).toBe(2);

    await db.updateTable("modpacks").set({ isPublic: true }).where("id", "=", modpackId).execute();
    expect((await get(url)).json().pagination.total).toBe(2);
    expect((await get(`${url}&search=Mod%2002`)).json().pagination.total).toBe(1);
    expect((await get(`${url}&search=Mod%2002&sortBy=createdAt`)).json().pagination.total).toBe(1);

    await db.updateTable("modpacks").set({ isActive: false }).where("id", "=", modpackId).execute();
    for (const order of orders) expect((await get(`${url}${order}`, user.headers)).statusCode).toBe(404);

    const empty = await post("/modpacks", user.headers, { name: "Empty pack" });
    const emptyList = await get(`/mods?modpackId=${empty.json().id}`, user.headers);
    expect(emptyList.statusCode).toBe(200);
    expect(emptyList.json()).toEqual({
      data: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, totalExact: true, nextCursor: null },
    });

    expect((await get("/mods?modpackId=00000000-0000-7000-8000-000000000000", user.headers)).statusCode).toBe(404);
    expect((await get("/mods?modpackId=nope")).statusCode).toBe(400);
  });
});

describe("GET /mods/tags", () => {
  it("counts every tag, most used first, then by name", async () => {
    const response = await get("/mods/tags");
    expect(response.statusCode).toBe(200);
    const { tags } = response.json() as { tags: { name: string; count: number }[] };
    const count = (name: string) => tags.find((tag) => tag.name === name)?.count;
    expect(count("seed-a")).toBe(15);
    expect(count("seed-b")).toBe(10);
    expect(count("seed-c")).toBe(6);
    expect(count("seed-y")).toBe(1);
    const sorted = [...tags].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    expect(tags).toEqual(sorted);
    const names = tags.map((tag) => tag.name);
    expect(names.indexOf("seed-y")).toBeLessThan(names.indexOf("seed-z"));
  });
});

describe("GET /mods/{id}", () => {
  it("reads one mod, 404 for an unknown id, 400 for a non-UUID", async () => {
    const list = await get("/mods?search=SeedMod3");
    const mod = list.json().data[0];
    const response = await get(`/mods/${mod.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(mod);

    const missing = await get("/mods/00000000-0000-7000-8000-000000000000");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { message: "Mod not found", code: "NOT_FOUND" } });

    const invalid = await get("/mods/not-a-uuid");
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error.issues.length).toBeGreaterThan(0);
  });
});

describe("POST /mods/{id}/refresh", () => {
  it("updates changed fields, marks a removed item inactive, and revives it when it returns", async () => {
    fake.items.set("3001", fakeItem("3001", { title: "Before", tags: ["Old"] }));
    const created = (await post("/mods", user.headers, { modAtribute: "3001" })).json();
    expect(created).toMatchObject({ name: "Before", platformModId: ["Mod3001"], tags: ["Old"] });

    fake.items.set(
      "3001",
      fakeItem("3001", {
        title: "After",
        description: "Workshop ID: 3001\nMod ID: Renamed\nMap Folder: NewMap",
        tags: ["New", "Build 42"],
        timeUpdated: 1_760_000_000,
      }),
    );
    const refreshed = await post(`/mods/${created.id}/refresh`, user.headers);
    expect(refreshed.statusCode).toBe(200);
    const body = refreshed.json();
    expect(body).toMatchObject({
      id: created.id,
      name: "After",
      platformModId: ["Renamed"],
      mapFolders: ["NewMap"],
      tags: ["New", "Build 42"],
      isActive: true,
      timeUpdated: new Date(1_760_000_000 * 1000).toISOString(),
      createdAt: created.createdAt,
    });
    expect(body).not.toHaveProperty("created");
    expect(Date.parse(body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));

    fake.items.delete("3001");
    const removed = await post(`/mods/${created.id}/refresh`, user.headers);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ id: created.id, name: "After", isActive: false });
    expect((await get(`/mods/${created.id}`)).json().isActive).toBe(false);

    fake.items.set("3001", fakeItem("3001", { title: "Back" }));
    const back = await post(`/mods/${created.id}/refresh`, user.headers);
    expect(back.json()).toMatchObject({ name: "Back", isActive: true });
  });

  it("answers 404 for an unknown mod, 502 when the workshop fails, 401 when anonymous", async () => {
    const missing = await post("/mods/00000000-0000-7000-8000-000000000000/refresh", user.headers);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { message: "Mod not found", code: "NOT_FOUND" } });

    const mod = (await get("/mods?search=SeedMod4")).json().data[0];
    fake.failNextFor(mod.workshopId, 4, "500");
    const failed = await post(`/mods/${mod.id}/refresh`, user.headers);
    expect(failed.statusCode).toBe(502);
    expect(failed.json().error.message).toBe("The Steam Workshop could not be reached; try again");

    expect((await post(`/mods/${mod.id}/refresh`, undefined)).statusCode).toBe(401);
  });
});

describe("POST /mods/update-all", () => {
  it("is for admins only", async () => {
    const anonymous = await post("/mods/update-all", undefined);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ message: "Unauthorized" });

    const plain = await post("/mods/update-all", user.headers);
    expect(plain.statusCode).toBe(403);
    expect(plain.json()).toEqual({ message: "Do not have permission" });
  });

  it("queues the update check for an admin (202 with the job id)", async () => {
    const response = await post("/mods/update-all", admin.headers);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ message: "Mod update check queued", jobId: expect.any(String) });
  });
});

describe("query count of GET /mods", () => {
  beforeAll(async () => {
    const items = Array.from({ length: 60 }, (_, index) =>
      workshopItem(String(7000 + index), { title: `Bulk Mod ${String(index).padStart(2, "0")}`, tags: ["bulk"] }),
    );
    await upsertWorkshopItems(service.runtime.database.db, items);
    // The update check queued above works through the same database handle: let it finish and stop.
    await service.runtime.jobs.stop({ graceful: true });
  });

  it("answers a search in one statement that counts what it read, or carries the planner's estimate past it", async () => {
    const small = await statementsOf(service, () => get("/mods?search=Bulk&limit=5"));
    const large = await statementsOf(service, () => get("/mods?search=Bulk&limit=50&tags=bulk&sortBy=updatedAt"));
    const whole = await statementsOf(service, () => get("/mods?search=Bulk&limit=100"));
    expect(small.result.json().data).toHaveLength(5);
    expect(small.result.json().pagination).toMatchObject({ totalExact: false });
    expect(large.result.json().data).toHaveLength(50);
    expect(large.result.json().pagination).toMatchObject({ totalExact: false });
    expect(whole.result.json().data).toHaveLength(60);
    expect(whole.result.json().pagination).toMatchObject({ total: 60, totalExact: true });
    expect(small.statements).toHaveLength(1);
    expect(small.statements[0]).toMatch(/planned_rows\(/);
    expect(large.statements).toHaveLength(1);
    expect(whole.statements).toHaveLength(1);
  });

  it("counts in the page's own statement, and a small catalogue's total is exact", async () => {
    const full = await statementsOf(service, () => get("/mods?limit=5"));
    expect(full.result.json().data).toHaveLength(5);
    expect(full.result.json().pagination).toMatchObject({ totalExact: true });
    expect(full.result.json().pagination.total).toBeGreaterThan(5);
    expect(full.statements).toHaveLength(1);
    expect(full.statements[0]).toMatch(/count\(\*\)/);
    const short = await statementsOf(service, () => get("/mods?limit=100"));
    const { data, pagination } = short.result.json();
    expect(data.length).toBeLessThan(100);
    expect(pagination).toMatchObject({ total: data.length, totalExact: true, nextCursor: null });
    expect(short.statements).toHaveLength(1);
  });
});
