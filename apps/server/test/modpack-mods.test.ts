import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { upsertWorkshopItems } from "../src/db/mods.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { createModpack } from "./support/modpacks.js";
import { statementsOf } from "./support/query-count.js";
import { addMembers, linkMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { workshopItem, workshopUrl } from "./support/workshop.js";

let fake: FakeSteam;
let service: TestService;
let owner: SignedIn;
let adder: SignedIn;
let remover: SignedIn;
let reader: SignedIn;
let stranger: SignedIn;

const accessDenied = { error: { message: "Access denied", code: "FORBIDDEN" } };

function request(
  method: "GET" | "POST" | "DELETE",
  url: string,
  user: SignedIn | undefined,
  payload?: Record<string, unknown>,
) {
  return service.app.inject({
    method,
    url,
    ...(user ? { headers: user.headers } : {}),
    ...(payload === undefined ? {} : { payload }),
  });
}

const addMod = (modpackId: string, user: SignedIn | undefined, reference: string) =>
  request("POST", `/modpacks/${modpackId}/mods`, user, { modAtribute: reference });
const removeMod = (modpackId: string, user: SignedIn | undefined, modId: string) =>
  request("DELETE", `/modpacks/${modpackId}/mods/${modId}`, user);
const listMods = (modpackId: string, user: SignedIn | undefined, query = "") =>
  request("GET", `/modpacks/${modpackId}/mods${query ? `?${query}` : ""}`, user);

const names = (response: { json(): { data: { name: string }[] } }) => response.json().data.map((mod) => mod.name);

beforeAll(async () => {
  fake = await startFakeSteam();
  service = await startTestService({ env: { WORKSHOP_API_URL: fake.url } });
  [owner, adder, remover, reader, stranger] = await Promise.all([
    signIn(service),
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

describe("adding and removing mods", () => {
  let modpackId: string;

  beforeAll(async () => {
    modpackId = await createModpack(service, owner);
    for (const id of ["4001", "4002", "4003", "4004"]) fake.items.set(id, fakeItem(id));
  });

  it("adds by URL, by workshop id and by a known in-game id (201), and answers 200 with the same link again", async () => {
    const byUrl = await addMod(modpackId, owner, workshopUrl("4001"));
    expect(byUrl.statusCode).toBe(201);
    const link = byUrl.json();
    expect(link).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      modpackId,
      modId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      isActive: true,
      createdAt: expect.any(String),
      created: true,
      dependenciesAdded: [],
    });
    const mod = (await request("GET", `/mods/${link.modId}`, undefined)).json();
    expect(mod).toMatchObject({ workshopId: "4001", platformModId: ["Mod4001"] });

    const again = await addMod(modpackId, owner, "4001");
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ...link, created: false });

    const byId = await addMod(modpackId, owner, "4002");
    expect(byId.statusCode).toBe(201);

    // 4003 enters the catalogue first; then its in-game id is enough.
    expect((await request("POST", "/mods", owner, { modAtribute: "4003" })).statusCode).toBe(201);
    const calls = fake.calls.length;
    const byInGameId = await addMod(modpackId, owner, "Mod4003");
    expect(byInGameId.statusCode).toBe(201);
    expect(fake.calls.length).toBe(calls);

    const list = await listMods(modpackId, owner);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((row: { workshopId: string }) => row.workshopId)).toEqual(["4001", "4002", "4003"]);
    expect(list.json().data[0]).toMatchObject({ id: link.modId, addedAt: expect.any(String) });
  });

  it("accepts the modAttribute spelling and answers 400 with issues without a reference", async () => {
    const spelled = await request("POST", `/modpacks/${modpackId}/mods`, owner, { modAttribute: "4004" });
    expect(spelled.statusCode).toBe(201);
    const cases: Array<[payload: Record<string, unknown> | undefined, message: string]> = [
      [{}, "Required: a workshop URL, workshop id, or in-game mod id"],
      [undefined, "Required: a workshop URL, workshop id, or in-game mod id"],
      [{ modAtribute: "" }, "Must not be empty: give a workshop URL, workshop id, or in-game mod id"],
      [{ modAttribute: " " }, "Must not be empty: give a workshop URL, workshop id, or in-game mod id"],
      [{ modAtribute: 4004 }, "Must be text"],
      [{ modAtribute: "x".repeat(501) }, "Must be at most 500 characters"],
    ];
    for (const [payload, message] of cases) {
      const response = await request("POST", `/modpacks/${modpackId}/mods`, owner, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.issues, JSON.stringify(payload)).toEqual([{ path: "modAtribute", message }]);
    }
  });

  it("removes a mod, and re-adding it reactivates the link at the end of the order", async () => {
    const before = await listMods(modpackId, owner);
    const first = before.json().data[0];
    const link = (await addMod(modpackId, owner, first.workshopId)).json();
    const { db } = service.runtime.database;
    const touched = async () =>
      (await db.selectFrom("modpacks").select("updatedAt").where("id", "=", modpackId).executeTakeFirstOrThrow())
        .updatedAt;
    const updatedBefore = await touched();

    const removed = await removeMod(modpackId, owner, first.id);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ message: "Mod removed from the modpack" });
    expect((await touched()).getTime()).toBeGreaterThan(updatedBefore.getTime());

    const after = await listMods(modpackId, owner);
    expect(after.json().data.map((row: { id: string }) => row.id)).not.toContain(first.id);
    expect(after.json().pagination.total).toBe(before.json().pagination.total - 1);

    const again = await removeMod(modpackId, owner, first.id);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: { message: "Mod not found in this modpack", code: "NOT_FOUND" } });

    const readded = await addMod(modpackId, owner, workshopUrl(first.workshopId));
    expect(readded.statusCode).toBe(201);
    expect(readded.json()).toMatchObject({ id: link.id, isActive: true, created: true });
    const reordered = await listMods(modpackId, owner);
    const ids = reordered.json().data.map((row: { id: string }) => row.id);
    expect(ids.at(-1)).toBe(first.id);
    expect(ids).toHaveLength(before.json().data.length);

    expect((await removeMod(modpackId, owner, "not-a-uuid")).statusCode).toBe(400);
    expect((await removeMod(modpackId, owner, "00000000-0000-7000-8000-000000000000")).statusCode).toBe(404);
  });

  it("refuses unknown in-game ids, collections, other URLs and unreachable workshops", async () => {
    const unknown = await addMod(modpackId, owner, "NoSuchMod");
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toEqual({
      error: {
        message: "No mod in the catalogue has in-game id NoSuchMod; add it by workshop URL or id",
        code: "UNPROCESSABLE_CONTENT",
      },
    });

    fake.collections.set("4900", ["4001"]);
    const collection = await addMod(modpackId, owner, workshopUrl("4900"));
    expect(collection.statusCode).toBe(422);
    expect(collection.json().error.message).toBe(
      "Workshop item 4900 is a collection; import it with POST /modpacks/{id}/import",
    );

    const other = await addMod(modpackId, owner, "https://example.com/mod");
    expect(other.statusCode).toBe(422);
    expect(other.json().error.message).toBe("Not a Steam Workshop URL");

    fake.items.set("4901", fakeItem("4901"));
    fake.failNextFor("4901", 4, "500");
    const unreachable = await addMod(modpackId, owner, "4901");
    expect(unreachable.statusCode).toBe(502);
    expect(unreachable.json()).toEqual({
      error: { message: "The Steam Workshop could not be reached; try again", code: "BAD_GATEWAY" },
    });
  });

  it("takes the active, most recently updated mod when several carry the in-game id", async () => {
    const { db } = service.runtime.database;
    const rows = await upsertWorkshopItems(db, [
      workshopItem("4801", { platformModIds: ["Shared"] }),
      workshopItem("4802", { platformModIds: ["Shared", "Other"] }),
      workshopItem("4803", { platformModIds: ["Shared"] }),
    ]);
    const id = (workshopId: string) => rows.find((row) => row.workshopId === workshopId)!.id;
    const at = (iso: string) => new Date(iso);
    await db
      .updateTable("mods")
      .set({ updatedAt: at("2026-01-01T00:00:00Z") })
      .where("id", "=", id("4801"))
      .execute();
    await db
      .updateTable("mods")
      .set({ updatedAt: at("2026-03-01T00:00:00Z") })
      .where("id", "=", id("4802"))
      .execute();
    await db
      .updateTable("mods")
      .set({ updatedAt: at("2026-06-01T00:00:00Z"), isActive: false })
      .where("id", "=", id("4803"))
      .execute();

    const target = await createModpack(service, owner);
    const added = await addMod(target, owner, "Shared");
    expect(added.statusCode).toBe(201);
    expect(added.json().modId).toBe(id("4802"));
  });
});

describe("who may add and remove", () => {
  let modpackId: string;
  let modId: string;

  beforeAll(async () => {
    modpackId = await createModpack(service, owner);
    await addMembers(service, modpackId, [{ userId: adder.userId, permission: ["read", "add-mod"] }]);
    await addMembers(service, modpackId, [{ userId: remover.userId, permission: ["read", "remove-mod"] }]);
    await addMembers(service, modpackId, [{ userId: reader.userId, permission: ["read"] }]);
    fake.items.set("4101", fakeItem("4101"));
    fake.items.set("4102", fakeItem("4102"));
  });

  it("lets a member with add-mod add, and refuses members without it", async () => {
    const added = await addMod(modpackId, adder, "4101");
    expect(added.statusCode).toBe(201);
    modId = added.json().modId;

    for (const user of [remover, reader]) {
      const refused = await addMod(modpackId, user, "4102");
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(accessDenied);
    }
  });

  it("lets a member with remove-mod remove, and refuses members without it", async () => {
    for (const user of [adder, reader]) {
      const refused = await removeMod(modpackId, user, modId);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(accessDenied);
    }
    const removed = await removeMod(modpackId, remover, modId);
    expect(removed.statusCode).toBe(200);
  });

  it("lets every member read the list", async () => {
    for (const user of [owner, adder, remover, reader]) {
      expect((await listMods(modpackId, user)).statusCode).toBe(200);
    }
  });

  it("refuses a stranger on a private modpack (403), answers 404 for an unknown modpack and 401 when anonymous", async () => {
    expect((await listMods(modpackId, stranger)).json()).toEqual(accessDenied);
    expect((await listMods(modpackId, stranger)).statusCode).toBe(403);
    const add = await addMod(modpackId, stranger, "4102");
    expect(add.statusCode).toBe(403);
    expect(add.json()).toEqual(accessDenied);
    expect((await removeMod(modpackId, stranger, modId)).statusCode).toBe(403);

    const missing = "00000000-0000-7000-8000-000000000000";
    for (const response of [
      await listMods(missing, owner),
      await addMod(missing, owner, "4102"),
      await removeMod(missing, owner, modId),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: { message: "Modpack not found", code: "NOT_FOUND" } });
    }

    const anonymous = await listMods(modpackId, undefined);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ message: "Unauthorized" });
  });

  it("lets anyone signed in read a public modpack's mods, but not change them", async () => {
    const publicId = await createModpack(service, owner, { isPublic: true });
    expect((await addMod(publicId, owner, "4102")).statusCode).toBe(201);
    const list = await listMods(publicId, stranger);
    expect(list.statusCode).toBe(200);
    expect(list.json().pagination.total).toBe(1);
    expect((await addMod(publicId, stranger, "4101")).statusCode).toBe(403);
  });
});

describe("two adds at once", () => {
  it("reports exactly one of them as created, for a catalogue mod and for a new workshop item", async () => {
    const modpackId = await createModpack(service, owner);
    fake.items.set("4201", fakeItem("4201"));
    fake.items.set("4202", fakeItem("4202"));
    expect((await request("POST", "/mods", owner, { modAtribute: "4201" })).statusCode).toBe(201);

    for (const reference of ["4201", workshopUrl("4202")]) {
      const responses = await Promise.all(Array.from({ length: 4 }, () => addMod(modpackId, owner, reference)));
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses, reference).toEqual([200, 200, 200, 201]);
      expect(new Set(responses.map((response) => response.json().id)).size).toBe(1);
      expect(responses.filter((response) => response.json().created)).toHaveLength(1);
    }
    expect((await listMods(modpackId, owner)).json().pagination.total).toBe(2);

    // Re-adding after removal, concurrently: one reactivation.
    const modId = (await listMods(modpackId, owner)).json().data[0].id;
    expect((await removeMod(modpackId, owner, modId)).statusCode).toBe(200);
    const readds = await Promise.all(Array.from({ length: 3 }, () => addMod(modpackId, owner, "4201")));
    expect(readds.map((response) => response.statusCode).sort()).toEqual([200, 200, 201]);
  });
});

describe("listing a modpack with 25 mods", () => {
  let modpackId: string;

  beforeAll(async () => {
    modpackId = await createModpack(service, owner);
    // Added in workshop-id order; names run the other way, so "by name" and "as added" differ.
    const items = Array.from({ length: 25 }, (_, index) => {
      const n = index + 1;
      return workshopItem(String(6000 + n), {
        title: `Pack Mod ${String(26 - n).padStart(2, "0")}`,
        description: `Pack description ${n}`,
        platformModIds: [`PackMod${n}`],
        tags: [...(n % 2 === 0 ? ["pk-even"] : ["pk-odd"]), ...(n % 5 === 0 ? ["pk-five"] : [])],
      });
    });
    await upsertWorkshopItems(service.runtime.database.db, items);
    for (const entry of items) expect((await addMod(modpackId, owner, entry.workshopId)).statusCode).toBe(201);
  });

  it("pages in the order mods were added, 10 a page by default", async () => {
    const first = await listMods(modpackId, owner);
    expect(first.json().pagination).toEqual({
      page: 1,
      limit: 10,
      total: 25,
      totalPages: 3,
      totalExact: true,
      nextCursor: expect.any(String),
    });
    expect(names(first).slice(0, 3)).toEqual(["Pack Mod 25", "Pack Mod 24", "Pack Mod 23"]);

    const third = await listMods(modpackId, owner, "page=3");
    expect(names(third)).toEqual(["Pack Mod 05", "Pack Mod 04", "Pack Mod 03", "Pack Mod 02", "Pack Mod 01"]);

    const past = await listMods(modpackId, owner, "page=4");
    expect(past.json()).toEqual({
      data: [],
      pagination: { page: 4, limit: 10, total: 25, totalPages: 3, totalExact: true, nextCursor: null },
    });

    const desc = await listMods(modpackId, owner, "sortOrder=desc&limit=2");
    expect(names(desc)).toEqual(["Pack Mod 01", "Pack Mod 02"]);

    const addedAt = first.json().data.map((row: { addedAt: string }) => Date.parse(row.addedAt));
    expect(addedAt).toEqual([...addedAt].sort((a, b) => a - b));
  });

  it("sorts by name and by the mod's update time", async () => {
    const byName = await listMods(modpackId, owner, "sortBy=name&limit=3");
    expect(names(byName)).toEqual(["Pack Mod 01", "Pack Mod 02", "Pack Mod 03"]);
    const byNameDesc = await listMods(modpackId, owner, "sortBy=name&sortOrder=desc&limit=1");
    expect(names(byNameDesc)).toEqual(["Pack Mod 25"]);

    await service.runtime.database.db
      .updateTable("mods")
      .set({ updatedAt: new Date("2099-01-01T00:00:00Z") })
      .where("workshopId", "=", "6013")
      .execute();
    const byUpdate = await listMods(modpackId, owner, "sortBy=updatedAt&sortOrder=desc&limit=1");
    expect(names(byUpdate)).toEqual(["Pack Mod 13"]);
  });

  it("searches name, description, workshop id and exact in-game ids", async () => {
    expect((await listMods(modpackId, owner, "search=pack%20mod%201")).json().pagination.total).toBe(10);
    expect(names(await listMods(modpackId, owner, "search=PackMod7"))).toEqual(["Pack Mod 19"]);
    expect(names(await listMods(modpackId, owner, "search=6020"))).toEqual(["Pack Mod 06"]);
    expect(names(await listMods(modpackId, owner, "search=description%2021"))).toEqual(["Pack Mod 05"]);
    expect((await listMods(modpackId, owner, "search=PackMod")).json().pagination.total).toBe(0);
  });

  it("filters by any of the given tags", async () => {
    expect((await listMods(modpackId, owner, "tags=pk-five")).json().pagination.total).toBe(5);
    // Even (12) or a multiple of five (5, of which 2 are even).
    expect((await listMods(modpackId, owner, "tags=pk-even,pk-five")).json().pagination.total).toBe(15);
    expect((await listMods(modpackId, owner, "tags=pk-even&tags=pk-five")).json().pagination.total).toBe(15);
    const combined = await listMods(modpackId, owner, "tags=pk-five&search=Pack%20Mod%201&sortBy=name");
    expect(names(combined)).toEqual(["Pack Mod 11", "Pack Mod 16"]);
  });

  it("rejects page and limit out of range with 400", async () => {
    for (const query of ["limit=0", "limit=101", "page=0", "page=abc", "sortOrder=up"]) {
      const response = await listMods(modpackId, owner, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.issues.length).toBeGreaterThan(0);
    }
  });
});

/** A request as `user` with a session made just for it (so it carries the same session lookup every time). */
async function freshSessionGet(user: SignedIn, url: string) {
  const session = await service.runtime.sessions.createSession(user.userId);
  return service.app.inject({ method: "GET", url, headers: { cookie: `${SESSION_COOKIE}=${session.token}` } });
}

describe("query count of GET /modpacks/{id}/mods", () => {
  let small: string;
  let large: string;

  beforeAll(async () => {
    small = await createModpack(service, owner);
    large = await createModpack(service, owner);
    const items = Array.from({ length: 50 }, (_, index) =>
      workshopItem(String(8000 + index), { title: `Count Mod ${index}` }),
    );
    const rows = await upsertWorkshopItems(service.runtime.database.db, items);
    const modIds = rows.map((row) => row.id);
    await linkMods(service, small, owner.userId, modIds.slice(0, 5));
    await linkMods(service, large, owner.userId, modIds);
    // Jobs work through the same database handle; none may run while statements are counted.
    await service.runtime.jobs.stop({ graceful: true });
  });

  it("sends the same statements for a 5-mod modpack as for a 50-mod one", async () => {
    const five = await statementsOf(service, () => freshSessionGet(owner, `/modpacks/${small}/mods?limit=50`));
    const fifty = await statementsOf(service, () =>
      freshSessionGet(owner, `/modpacks/${large}/mods?limit=50&search=Count`),
    );
    expect(five.result.json().data).toHaveLength(5);
    expect(fifty.result.json().data).toHaveLength(50);
    // Session insert and lookup, the modpack rule, the page: the page is shorter than the limit (or
    // the search's matches are few), so it says the total itself.
    expect(five.statements).toHaveLength(4);
    expect(fifty.statements).toHaveLength(five.statements.length);
    expect(five.statements.filter((text) => text.includes("modpack_mods"))).toHaveLength(1);
    expect(fifty.result.json().pagination).toMatchObject({ total: 50, totalExact: true });
    console.info(
      `GET /modpacks/{id}/mods statements: 5-mod page ${five.statements.length}, 50-mod page ${fifty.statements.length} (1 of them the page)`,
    );
  });

  it("counts a full page's modpack in the page's statement, from the links alone", async () => {
    const page = await statementsOf(service, () => freshSessionGet(owner, `/modpacks/${large}/mods?limit=10`));
    expect(page.result.json().pagination).toMatchObject({ total: 50, totalExact: true });
    const links = page.statements.filter((text) => text.includes("modpack_mods"));
    expect(links).toHaveLength(1);
    const count = links[0]!.match(/\(select count\(\*\)::int[^()]* from [^()]*\)/)?.[0];
    expect(count).toMatch(/from "?modpack_mods"? as /);
    expect(count).not.toMatch(/\bmods\b/);
  });
});

describe("the links' copies of their mods' names and tags", () => {
  let modpackId: string;
  /** Catalogue mod ids by workshop id. */
  const modIds = new Map<string, string>();
  const db = () => service.runtime.database.db;
  const ids = (response: { json(): { data: { id: string }[] } }) => response.json().data.map((mod) => mod.id);
  const withLimit = (query: string) => (query.includes("limit=") ? query : `limit=100&${query}`);
  const inPack = (query: string) => listMods(modpackId, owner, withLimit(query));
  const inCatalogue = (query: string) => request("GET", `/mods?modpackId=${modpackId}&${withLimit(query)}`, owner);
  const rename = (workshopId: string, name: string) =>
    db().updateTable("mods").set({ name }).where("workshopId", "=", workshopId).execute();
  /** Each link's copies beside its mod's own name and tags. */
  const copies = () =>
    db()
      .selectFrom("modpackMods as link")
      .innerJoin("mods", "mods.id", "link.modId")
      .select(["mods.workshopId", "mods.name", "mods.tags", "link.modName", "link.modTags", "link.isActive"])
      .where("link.modpackId", "=", modpackId)
      .orderBy("mods.workshopId")
      .execute();

  beforeAll(async () => {
    modpackId = await createModpack(service, owner);
    const items = [
      workshopItem("9101", { title: "Copy Delta", tags: ["copy-a"] }),
      workshopItem("9102", { title: "Copy Alpha", tags: ["copy-b"] }),
      workshopItem("9103", { title: "Copy Charlie", tags: ["copy-a", "copy-b"] }),
      workshopItem("9104", { title: "Copy Bravo", tags: [] }),
      workshopItem("9105", { title: "Copy Echo", tags: ["copy-b"] }),
    ];
    for (const row of await upsertWorkshopItems(db(), items)) modIds.set(row.workshopId, row.id);
    // Four through the service, the fifth written straight into the table: the copies come either way.
    for (const id of ["9101", "9102", "9103", "9104"])
      expect((await addMod(modpackId, owner, id)).statusCode).toBe(201);
    await linkMods(service, modpackId, owner.userId, [modIds.get("9105")!]);
  });

  it("gives a new link its mod's name and tags, however the link is written", async () => {
    const rows = await copies();
    expect(rows).toHaveLength(5);
    for (const row of rows) expect([row.modName, row.modTags]).toEqual([row.name, row.tags]);
    for (const list of [inPack("sortBy=name"), inCatalogue("sortBy=name")]) {
      expect(names(await list)).toEqual(["Copy Alpha", "Copy Bravo", "Copy Charlie", "Copy Delta", "Copy Echo"]);
    }
  });

  it("follows a mod renamed or retagged in the catalogue, in the name order and the tag filter", async () => {
    await rename("9102", "Copy Zulu");
    // A refresh from the workshop renames and retags in one upsert.
    await upsertWorkshopItems(db(), [workshopItem("9104", { title: "Copy Foxtrot", tags: ["copy-new"] })]);
    for (const list of [inPack, inCatalogue]) {
      expect(names(await list("sortBy=name"))).toEqual([
        "Copy Charlie",
        "Copy Delta",
        "Copy Echo",
        "Copy Foxtrot",
        "Copy Zulu",
      ]);
      expect(names(await list("sortBy=name&sortOrder=desc&limit=2"))).toEqual(["Copy Zulu", "Copy Foxtrot"]);
      expect(names(await list("tags=copy-new"))).toEqual(["Copy Foxtrot"]);
      expect((await list("tags=copy-new")).json().pagination.total).toBe(1);
      expect(names(await list("sortBy=name&tags=copy-b"))).toEqual(["Copy Charlie", "Copy Echo", "Copy Zulu"]);
    }
    for (const row of await copies()) expect([row.modName, row.modTags]).toEqual([row.name, row.tags]);
  });

  it("leaves the links alone when neither the name nor the tags change", async () => {
    const versionOf = () =>
      db()
        .selectFrom("modpackMods")
        .select(sql<string>`xmin::text`.as("xmin"))
        .where("modpackId", "=", modpackId)
        .where("modId", "=", modIds.get("9101")!)
        .executeTakeFirstOrThrow();
    const before = await versionOf();
    await db().updateTable("mods").set({ description: "Changed" }).where("workshopId", "=", "9101").execute();
    await rename("9101", "Copy Delta");
    expect(await versionOf()).toEqual(before);
  });

  it("brings a removed link up to date when it comes back", async () => {
    const modId = modIds.get("9103")!;
    expect((await removeMod(modpackId, owner, modId)).statusCode).toBe(200);
    await rename("9103", "Copy Yankee");
    await db()
      .updateTable("mods")
      .set({ tags: ["copy-back"] })
      .where("id", "=", modId)
      .execute();
    expect((await addMod(modpackId, owner, "9103")).statusCode).toBe(201);
    expect(names(await inPack("sortBy=name&sortOrder=desc&limit=2"))).toEqual(["Copy Zulu", "Copy Yankee"]);
    expect(names(await inPack("tags=copy-back"))).toEqual(["Copy Yankee"]);
    for (const row of await copies()) expect([row.modName, row.modTags]).toEqual([row.name, row.tags]);
  });

  it("breaks name ties by the link's id in the modpack's list and by the mod's id in the catalogue's", async () => {
    const tied = await createModpack(service, owner);
    const rows = await upsertWorkshopItems(
      db(),
      ["9201", "9202", "9203"].map((id) => workshopItem(id, { title: "Copy Twin" })),
    );
    const byMod = rows.map((row) => row.id).sort();
    // Link ids in the reverse of the mods' id order, so the two tie-breaks disagree.
    const byLink = [...byMod].reverse();
    await db()
      .insertInto("modpackMods")
      .values(
        byLink.map((modId, index) => ({
          id: `01900000-0000-7000-8000-00000000920${index}`,
          modpackId: tied,
          modId,
          addedBy: owner.userId,
          addedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
        })),
      )
      .execute();
    expect(ids(await listMods(tied, owner, "sortBy=name"))).toEqual(byLink);
    expect(ids(await listMods(tied, owner, "sortBy=name&sortOrder=desc"))).toEqual([...byLink].reverse());
    const catalogue = (query: string) => request("GET", `/mods?modpackId=${tied}&${query}`, owner);
    expect(ids(await catalogue("sortBy=name"))).toEqual(byMod);
    expect(ids(await catalogue("sortBy=name&sortOrder=desc"))).toEqual([...byMod].reverse());
    // One a page, by cursor: the same order.
    for (const [list, expected] of [
      [(query: string) => listMods(tied, owner, query), byLink],
      [catalogue, byMod],
    ] as const) {
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const response: Awaited<ReturnType<typeof catalogue>> = await list(
          `sortBy=name&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        walked.push(...ids(response));
        cursor = response.json().pagination.nextCursor;
      } while (cursor);
      expect(walked).toEqual(expected);
    }
  });

  it("pages by cursor in the catalogue's current names when a mod is renamed mid-walk", async () => {
    for (const list of [inPack, inCatalogue]) {
      const first = await list("sortBy=name&limit=2");
      expect(names(first)).toEqual(["Copy Delta", "Copy Echo"]);
      const cursor = first.json().pagination.nextCursor as string;
      // The cursor names the catalogue's name order, as cursors made before the copies did.
      expect(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))[0]).toMatch(/\.mods\.name\.asc\./);
      // Echo moves before the cursor's position, and Delta (already answered) after it.
      await rename("9105", "Copy Bravo");
      await rename("9101", "Copy Xray");
      const rest = await list(`sortBy=name&limit=100&cursor=${encodeURIComponent(cursor)}`);
      expect(names(rest)).toEqual(["Copy Foxtrot", "Copy Xray", "Copy Yankee", "Copy Zulu"]);
      await rename("9105", "Copy Echo");
      await rename("9101", "Copy Delta");
    }
  });
});
