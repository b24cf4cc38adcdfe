/**
 * Cursor paging: walking a list by `pagination.nextCursor` sees every row that was there when the
 * walk began exactly once, in order, while rows are added before and after its position; `page`
 * is bounded (page × limit ≤ 10,000, beyond it 400 naming the cursor); counts above 1,000 are the
 * planner's estimate, flagged `totalExact: false`.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;
let added = 0;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service);
});
afterAll(async () => {
  await service?.stop();
});

const get = (url: string, headers?: Record<string, string>) =>
  service.app.inject({ method: "GET", url, ...(headers ? { headers } : {}) });

/** Catalogue mods named `${prefix} ${name}`, inserted straight into the table. */
async function addMods(prefix: string, names: string[]): Promise<void> {
  await insertMods(
    service,
    names.map((name) => {
      added += 1;
      return { workshopId: String(7_000_000 + added), name: `${prefix} ${name}`, description: "cursor test" };
    }),
  );
}

interface Page {
  data: { id: string; name: string }[];
  pagination: { total: number; totalExact?: boolean; nextCursor?: string | null };
}

/** Walks a list by its cursors, calling `between` after each page; answers the ids in order. */
async function walk(firstUrl: string, between: (pageIndex: number) => Promise<void>, headers?: Record<string, string>) {
  const seen: string[] = [];
  let url: string | undefined = firstUrl;
  for (let index = 0; url; index++) {
    const response = await get(url, headers);
    expect(response.statusCode).toBe(200);
    const body = response.json() as Page;
    seen.push(...body.data.map((row) => row.id));
    await between(index);
    const cursor = body.pagination.nextCursor;
    url = cursor ? `${firstUrl}&cursor=${encodeURIComponent(cursor)}` : undefined;
  }
  return seen;
}

describe("a walk by cursor while rows are added", () => {
  it("sees every mod that was there once, in name order, whatever is added before and after it", async () => {
    const names = Array.from({ length: 23 }, (_, index) => `m${String(index).padStart(2, "0")}`);
    await addMods("Cursorwalk", names);
    const before = (await get("/mods?search=Cursorwalk&limit=100")).json() as Page;
    const original = before.data.map((row) => row.id);
    expect(original).toHaveLength(23);
    const seen = await walk("/mods?search=Cursorwalk&limit=5", async (index) => {
      // One sorting before everything seen, one after everything (walked into later), per page.
      await addMods("Cursorwalk", [`a-new-${index}`, `z-new-${index}`]);
    });
    expect(new Set(seen).size).toBe(seen.length);
    const originalSeen = seen.filter((id) => original.includes(id));
    expect(originalSeen).toEqual(original);
  });

  it("sees every public modpack once, newest first, while newer ones are created", async () => {
    const created: string[] = [];
    for (let index = 0; index < 12; index++) {
      const response = await service.app.inject({
        method: "POST",
        url: "/modpacks",
        headers: owner.headers,
        payload: { name: `Cursor pack ${index}`, description: "cursor walk", isPublic: true },
      });
      expect(response.statusCode).toBe(201);
      created.push(response.json().id);
    }
    const seen = await walk("/modpacks/public?search=cursor%20walk&limit=4", async (index) => {
      const response = await service.app.inject({
        method: "POST",
        url: "/modpacks",
        headers: owner.headers,
        payload: { name: `Cursor pack new ${index}`, description: "cursor walk", isPublic: true },
      });
      expect(response.statusCode).toBe(201);
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => created.includes(id))).toEqual([...created].reverse());
  });

  it("walks a modpack's mods by name and by load order, each mod once", async () => {
    const pack = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: owner.headers,
      payload: { name: "Cursor modpack" },
    });
    const packId = pack.json().id as string;
    await addMods("Packwalk", ["c", "a", "e", "b", "d", "g", "f"]);
    const { db } = service.runtime.database;
    await sql`
      insert into modpack_mods (modpack_id, mod_id, added_by, added_at)
      select ${packId}, id, ${owner.userId}, now() - (row_number() over (order by workshop_id desc)) * interval '1 minute'
      from mods where name like 'Packwalk %'
    `.execute(db);
    for (const sortBy of ["name", "createdAt", "updatedAt"]) {
      const all = (await get(`/modpacks/${packId}/mods?limit=100&sortBy=${sortBy}`, owner.headers)).json() as Page;
      const seen = await walk(`/modpacks/${packId}/mods?limit=3&sortBy=${sortBy}`, async () => {}, owner.headers);
      expect(seen).toEqual(all.data.map((row) => row.id));
      expect(seen).toHaveLength(7);
    }
  });
  it("sees every user once, newest first, in the admin list while users sign up", async () => {
    const admin = await signIn(service, { role: "admin" });
    const created: string[] = [];
    for (let index = 0; index < 9; index++) {
      created.push((await signIn(service, { name: `Adminwalk ${index}` })).userId);
    }
    const seen = await walk(
      "/admin/users?search=Adminwalk&limit=4",
      async (index) => {
        await signIn(service, { name: `Adminwalk new ${index}` });
      },
      admin.headers,
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => created.includes(id))).toEqual([...created].reverse());
  });
});

describe("the lists without a filter (their page statement compiled once per sort and kind of page)", () => {
  beforeAll(async () => {
    await addMods("Unfiltered", ["k", "c", "x", "a", "q", "f", "m", "b"]);
    for (const name of [
      "Unfiltered h",
      "Unfiltered d",
      "Unfiltered t",
      "Unfiltered a",
      "Unfiltered n",
      "Unfiltered w",
      "Unfiltered e",
    ]) {
      const response = await service.app.inject({
        method: "POST",
        url: "/modpacks",
        headers: owner.headers,
        payload: { name, isPublic: true },
      });
      expect(response.statusCode).toBe(201);
    }
  });

  /** The rows a list answers, in its order, straight from the table. */
  const inOrder = async (table: "modpacks" | "mods", column: string, order: "asc" | "desc") => {
    const where = table === "modpacks" ? sql`where is_public and is_active` : sql``;
    const direction = sql.raw(order);
    const { rows } = await sql<{ id: string }>`
      select id from ${sql.table(table)} ${where} order by ${sql.ref(column)} ${direction}, id ${direction}`.execute(
      service.runtime.database.db,
    );
    return rows.map((row) => row.id);
  };

  const lists: [string, string, "modpacks" | "mods", string, "asc" | "desc"][] = [
    [
      "public modpacks, newest first",
      "/modpacks/public?sortBy=createdAt&sortOrder=desc",
      "modpacks",
      "created_at",
      "desc",
    ],
    ["public modpacks by name", "/modpacks/public?sortBy=name&sortOrder=asc", "modpacks", "name", "asc"],
    [
      "public modpacks, least recently updated first",
      "/modpacks/public?sortBy=updatedAt&sortOrder=asc",
      "modpacks",
      "updated_at",
      "asc",
    ],
    ["the catalogue by name", "/mods?sortBy=name&sortOrder=asc", "mods", "name", "asc"],
    ["the catalogue by name, descending", "/mods?sortBy=name&sortOrder=desc", "mods", "name", "desc"],
    ["the catalogue, newest first", "/mods?sortBy=createdAt&sortOrder=desc", "mods", "created_at", "desc"],
  ];
  it.each(lists)(
    "answers %s in its order, by page number, by cursor and in pages of 100",
    async (_label, url, table, column, order) => {
      const whole = await inOrder(table, column, order);
      expect(whole.length).toBeGreaterThanOrEqual(7);
      expect(await walk(`${url}&limit=100`, async () => {})).toEqual(whole);
      expect(await walk(`${url}&limit=3`, async () => {})).toEqual(whole);
      const byNumber: string[] = [];
      for (let page = 1; byNumber.length < whole.length; page++) {
        const body = (await get(`${url}&limit=3&page=${page}`)).json() as Page;
        expect(body.data.length).toBeGreaterThan(0);
        byNumber.push(...body.data.map((row) => row.id));
      }
      expect(byNumber).toEqual(whole);
    },
  );
});

describe("bounds and refusals", () => {
  it.each([
    ["page × limit past 10,000", "/mods?page=101&limit=100", /cursor/],
    ["page × limit past 10,000 on modpacks", "/modpacks/public?page=1001&limit=10", /cursor/],
    ["a cursor that is not one", "/mods?cursor=not-a-cursor", /Invalid cursor/],
    ["a cursor from another sort", "CROSS", /Invalid cursor/],
  ])("answers 400 for %s", async (_name, url, message) => {
    let target = url;
    if (url === "CROSS") {
      await addMods("Crosssort", ["a", "b", "c"]);
      const first = (await get("/mods?search=Crosssort&limit=1&sortBy=name")).json() as Page;
      target = `/mods?search=Crosssort&limit=1&sortBy=createdAt&cursor=${encodeURIComponent(first.pagination.nextCursor ?? "")}`;
    }
    const response = await get(target);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(message);
  });

  it.each([
    ["another search", "/mods?search=Crossfilter&limit=1", "/mods?search=Crossfil&limit=1"],
    ["another tag filter", "/mods?search=Crossfilter&limit=1", "/mods?search=Crossfilter&tags=Misc&limit=1"],
  ])("answers 400 for a cursor made under %s", async (_name, from, to) => {
    await addMods("Crossfilter", ["a", "b", "c"]);
    const first = (await get(from)).json() as Page;
    const cursor = first.pagination.nextCursor;
    expect(cursor).not.toBeNull();
    const response = await get(`${to}&cursor=${encodeURIComponent(cursor ?? "")}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/Invalid cursor/);
  });

  it("answers the deepest page offsets allow (page × limit = 10,000)", async () => {
    expect((await get("/mods?page=100&limit=100")).statusCode).toBe(200);
  });

  it("counts exactly up to 1,000 matches and estimates above, flagged totalExact: false", async () => {
    await sql`
      insert into mods (workshop_id, name, description)
      select (8000000 + i)::text, 'Manymods ' || i, 'estimated'
      from generate_series(1, 1100) as i
    `.execute(service.runtime.database.db);
    await sql`analyze mods`.execute(service.runtime.database.db);
    const many = (await get("/mods?limit=5")).json() as Page;
    expect(many.pagination.totalExact).toBe(false);
    expect(many.pagination.total).toBeGreaterThan(1000);
    const few = (await get("/mods?search=Crosssort&limit=5")).json() as Page;
    expect(few.pagination).toMatchObject({ total: 3, totalExact: true });
  });

  it("counts a search within a modpack the same way, and the modpack's own size exactly", async () => {
    const created = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: owner.headers,
      payload: { name: "Eleven hundred mods" },
    });
    const modpackId = (created.json() as { id: string }).id;
    await sql`
      insert into modpack_mods (modpack_id, mod_id)
      select ${modpackId}::uuid, id from mods where name like 'Manymods %'
    `.execute(service.runtime.database.db);
    await sql`analyze modpack_mods`.execute(service.runtime.database.db);
    const list = (query: string) => get(`/modpacks/${modpackId}/mods?limit=5${query}`, owner.headers);
    const all = (await list("")).json() as Page;
    expect(all.pagination).toMatchObject({ total: 1100, totalExact: true });
    const many = (await list("&search=manymods")).json() as Page;
    expect(many.pagination.totalExact).toBe(false);
    expect(many.pagination.total).toBeGreaterThan(1000);
    // "Manymods 1", "Manymods 10" to "19", "100" to "199" and "1000" to "1100".
    const some = (await list(`&search=${encodeURIComponent("Manymods 1")}`)).json() as Page;
    expect(some.pagination).toMatchObject({ total: 212, totalExact: true });
    const inCatalogue = (query: string) => get(`/mods?modpackId=${modpackId}&limit=5${query}`, owner.headers);
    expect(((await inCatalogue("")).json() as Page).pagination).toMatchObject({ total: 1100, totalExact: true });
    expect(((await inCatalogue("&search=manymods")).json() as Page).pagination).toMatchObject({ totalExact: false });
  });
});
