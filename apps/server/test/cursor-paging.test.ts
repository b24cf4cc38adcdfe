/**
 * Cursor paging: walking a list by `pagination.nextCursor` sees every row that was there when the
 * walk began exactly once, in order, while rows are added before and after its position; `page`
 * is bounded (page × limit ≤ 10,000, beyond it 400 naming the cursor); counts of an unfiltered list
 * above 1,000, and of a search its page did not read to the end, are the planner's estimate, flagged
 * `totalExact: false` (search-totals.test.ts).
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statementsOf } from "./support/query-count.js";
import { insertModpack, insertMods } from "./support/rows.js";
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

  it("walks mods whose names are as long as the workshop allows, in any script, by name", async () => {
    // 255 characters each: emoji (two UTF-16 units), CJK, control characters JSON escapes as \u00XX.
    const long = (fill: string, index: number) => `${index}${fill.repeat(255)}`.slice(0, 255 - 11);
    const names = [long("😀", 0), long("語", 1), long('\u0001"', 2), long("é", 3)];
    await addMods("Longcursor", names);
    const seen = await walk("/mods?search=Longcursor&sortBy=name&limit=1", async () => {});
    expect(seen).toHaveLength(names.length);
    expect(new Set(seen).size).toBe(names.length);
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

  describe("a modpack's mods by name and by load order, each mod once", () => {
    let packId = "";
    beforeAll(async () => {
      const pack = await service.app.inject({
        method: "POST",
        url: "/modpacks",
        headers: owner.headers,
        payload: { name: "Cursor modpack" },
      });
      packId = pack.json().id as string;
      const names = ["c", "a", "e", "b", "d", "g", "f", "j", "h", "i"];
      // Every other mod is tagged, so a tag filter's cursor walks a page of its own rows.
      await insertMods(
        service,
        names.map((name, index) => {
          added += 1;
          return {
            workshopId: String(7_000_000 + added),
            name: `Packwalk ${name}`,
            description: "cursor test",
            tags: index % 2 === 0 ? ["Weapons", "Build 42"] : ["Map"],
          };
        }),
      );
      await sql`
        insert into modpack_mods (modpack_id, mod_id, added_by, added_at)
        select ${packId}, id, ${owner.userId}, now() - (row_number() over (order by workshop_id desc)) * interval '1 minute'
        from mods where name like 'Packwalk %'
      `.execute(service.runtime.database.db);
    });

    // Each sort and order, without and with a tag filter. By name and in load order a page is one
    // fixed statement whose tags come before a cursor's sort value and id (`packModsPage`); by
    // update time it is built per request.
    const filters = [
      ["", 10],
      ["&tags=Weapons", 5],
      ["&tags=Map&tags=Weapons", 10],
    ] as const;
    const walks = (["name", "createdAt", "updatedAt"] as const).flatMap((sortBy) =>
      (["asc", "desc"] as const).flatMap((sortOrder) =>
        filters.map(([tags, count]) => [sortBy, sortOrder, tags, count] as const),
      ),
    );
    it.each(walks)(
      "?sortBy=%s&sortOrder=%s%s answers its %i mods by cursor as in one page, each page with their count",
      async (sortBy, sortOrder, tags, count) => {
        const url = `/modpacks/${packId}/mods?sortBy=${sortBy}&sortOrder=${sortOrder}${tags}&limit=3`;
        const all = (await get(`${url.replace("limit=3", "limit=100")}`, owner.headers)).json() as Page;
        expect(all.data).toHaveLength(count);
        expect(all.pagination.total).toBe(count);
        const names = all.data.map((row) => row.name);
        if (sortBy === "name") {
          const sorted = [...names].sort();
          expect(names).toEqual(sortOrder === "asc" ? sorted : sorted.reverse());
        }
        const seen: string[] = [];
        for (let next: string | undefined = url; next; ) {
          const response = await get(next, owner.headers);
          expect(response.statusCode).toBe(200);
          const body = response.json() as Page;
          expect(body.pagination.total).toBe(count);
          seen.push(...body.data.map((row) => row.id));
          const cursor = body.pagination.nextCursor;
          next = cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : undefined;
        }
        expect(seen).toEqual(all.data.map((row) => row.id));
      },
    );
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

  it("counts an unfiltered list exactly up to 1,000 rows and estimates above, flagged totalExact: false", async () => {
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
    // "Manymods 1", "Manymods 10" to "19", "100" to "199" and "1000" to "1100": all of them are
    // read and counted only when the page sorts by a catalogue column.
    const some = (await list(`&search=${encodeURIComponent("Manymods 1")}&sortBy=updatedAt`)).json() as Page;
    expect(some.pagination).toMatchObject({ total: 212, totalExact: true });
    const inCatalogue = (query: string) => get(`/mods?modpackId=${modpackId}&limit=5${query}`, owner.headers);
    expect(((await inCatalogue("")).json() as Page).pagination).toMatchObject({ total: 1100, totalExact: true });
    expect(((await inCatalogue("&search=manymods")).json() as Page).pagination).toMatchObject({ totalExact: false });
  });

  it("estimates a public list of more than 1,000 modpacks in the page's own statement", async () => {
    const db = service.runtime.database.db;
    await sql`
      insert into modpacks (name, owner_id, is_public, metadata)
      select 'Manypacks ' || i, ${owner.userId}::uuid, true, '{}'
      from generate_series(1, 1100) as i
    `.execute(db);
    await sql`analyze modpacks`.execute(db);
    const { rows } = await sql<{ count: number }>`
      select count(*)::int as count from modpacks where is_public and is_active
    `.execute(db);
    const { result, statements } = await statementsOf(service, () => get("/modpacks/public?limit=5"));
    expect(result.statusCode).toBe(200);
    expect((result.json() as Page).pagination).toMatchObject({ total: rows[0]?.count, totalExact: false });
    expect(statements).toHaveLength(1);
  });
});

describe("a search of more than 1,000 matches, in every sort", () => {
  /** The matches' ids in the order the list must answer them, straight from the table. */
  async function expected(orderBy: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      select id from mods where name like 'Manymods %' order by ${sql.raw(orderBy)}
    `.execute(service.runtime.database.db);
    return rows.map((row) => row.id);
  }

  it.each([
    ["sortBy=name&sortOrder=asc", "name asc, id asc"],
    ["sortBy=name&sortOrder=desc", "name desc, id desc"],
    ["sortBy=createdAt&sortOrder=desc", "created_at desc, id desc"],
  ])(
    "walks all of them in order by cursor (%s), whether they lead the sort order or follow 1,100 others",
    async (sort, orderBy) => {
      // Rows that sort before and after the matches and match nothing: a page of matches then lies
      // beyond the rows the sort index is walked through, for at least one direction.
      if (!(await get("/mods?search=Aaafiller&limit=1")).json().data.length) {
        await sql`
        insert into mods (workshop_id, name, description, created_at)
        select (8100000 + i)::text, 'Aaafiller ' || i, 'not a match', now() + interval '1 day'
        from generate_series(1, 1100) as i
      `.execute(service.runtime.database.db);
        await sql`analyze mods`.execute(service.runtime.database.db);
      }
      const seen = await walk(`/mods?search=manymods&limit=100&${sort}`, async () => {});
      expect(seen).toEqual(await expected(orderBy));
      const page3 = (await get(`/mods?search=manymods&limit=100&page=3&${sort}`)).json() as Page;
      expect(page3.data.map((row) => row.id)).toEqual((await expected(orderBy)).slice(200, 300));
      expect(page3.pagination.totalExact).toBe(false);
    },
  );
});

describe("a cursor this service did not make for the list, as it is", () => {
  /**
   * Each list that answers cursors: a first page of one row (of two or more), who reads it, and
   * lists whose cursors it refuses: its rows in another sort (none for a list with one order), the
   * same sort under another filter, and another list.
   */
  interface CursorList {
    url: string;
    who: "anyone" | "owner" | "admin";
    otherSort: string | undefined;
    otherFilter: string;
    otherList: string;
  }
  const lists = new Map<string, CursorList>();
  let admin: SignedIn;
  const headersOf = (who: CursorList["who"]) =>
    who === "owner" ? owner.headers : who === "admin" ? admin.headers : undefined;

  beforeAll(async () => {
    admin = await signIn(service, { role: "admin" });
    for (const index of [1, 2, 3]) await signIn(service, { name: `Edituser ${index}` });
    await addMods("Editmod", ["a", "b", "c"]);
    const modIds = (await get("/mods?search=Editmod&limit=3")).json().data.map((mod: { id: string }) => mod.id);
    for (const name of ["Editpack a", "Editpack b"]) {
      await insertModpack(service, { ownerId: owner.userId, name, isPublic: true });
    }
    const pack = await insertModpack(service, { ownerId: owner.userId, name: "Editpack c", isPublic: true, modIds });
    // A shorter search matches the same rows under another filter.
    const packs = (query: string, search = "Editpack") => `/modpacks/public?limit=1&search=${search}&${query}`;
    const mine = (query: string, search = "Editpack") => `/modpacks/my?limit=1&search=${search}&${query}`;
    const mods = (query: string, search = "Editmod") => `/mods?limit=1&search=${search}&${query}`;
    const inCatalogue = (query: string) => `/mods?limit=1&modpackId=${pack}&${query}`;
    const links = (query: string) => `/modpacks/${pack}/mods?limit=1&${query}`;
    const users = (search: string) => `/admin/users?limit=1&search=${search}`;
    const newest = "sortBy=createdAt&sortOrder=desc";
    const byName = "sortBy=name&sortOrder=asc";
    const entries: [string, CursorList["who"], string, string | undefined, string, string][] = [
      // name, who, url, other sort, other filter, other list
      [
        "public modpacks, newest first",
        "anyone",
        packs(newest),
        packs("sortBy=updatedAt"),
        packs(newest, "ditpack"),
        mine(newest),
      ],
      [
        "public modpacks by name",
        "anyone",
        packs(byName),
        packs("sortBy=name&sortOrder=desc"),
        packs(byName, "ditpack"),
        mods(byName),
      ],
      ["my modpacks", "owner", mine(newest), mine(byName), mine(newest, "ditpack"), packs(newest)],
      [
        "the catalogue, newest first",
        "anyone",
        mods(newest),
        mods("sortBy=updatedAt"),
        mods(newest, "ditmod"),
        packs(newest),
      ],
      [
        "the catalogue by name",
        "anyone",
        mods(byName),
        mods("sortBy=name&sortOrder=desc"),
        inCatalogue(byName),
        links(byName),
      ],
      [
        "a modpack's mods in the catalogue",
        "anyone",
        inCatalogue(newest),
        inCatalogue("sortBy=updatedAt"),
        inCatalogue(`${newest}&search=Editmod`),
        links(newest),
      ],
      [
        "a modpack's mods in load order",
        "owner",
        links(""),
        links("sortBy=updatedAt"),
        links("search=Editmod"),
        inCatalogue(""),
      ],
      [
        "a modpack's mods by name",
        "owner",
        links(byName),
        links("sortBy=name&sortOrder=desc"),
        links(`${byName}&search=Editmod`),
        mods(byName),
      ],
      ["the admin's users", "admin", users("Edituser"), undefined, users("dituser"), packs(newest)],
    ];
    for (const [name, who, url, otherSort, otherFilter, otherList] of entries) {
      lists.set(name, { url, who, otherSort, otherFilter, otherList });
    }
  });

  /** The `nextCursor` of a list's first page (two rows or more, one a page). */
  const cursorOf = async (url: string, who: CursorList["who"]) => {
    const response = await get(url, headersOf(who));
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    const cursor = (response.json() as Page).pagination.nextCursor;
    expect(cursor, url).toEqual(expect.any(String));
    return cursor as string;
  };
  /** The cursor's JSON fields changed by `change`, encoded again. */
  const edited = (cursor: string, change: (fields: unknown[]) => unknown[]) =>
    Buffer.from(JSON.stringify(change(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))))).toString(
      "base64url",
    );
  const at = (index: number, value: (old: string) => unknown) => (fields: unknown[]) =>
    fields.map((field, position) => (position === index ? value(String(field)) : field));
  // A timestamp's last digit or a name's last letter: still a value of the column's type.
  const otherValue = (value: string) =>
    /\d\D*$/.test(value) ? value.replace(/\d(?=\D*$)/, (digit) => String((Number(digit) + 1) % 10)) : `${value}x`;

  const cases: [string, (cursor: string, list: CursorList) => Promise<string> | string][] = [
    ["an edited value", (cursor) => edited(cursor, at(1, otherValue))],
    [
      "a value no sort has",
      (cursor) =>
        edited(
          cursor,
          at(1, () => "last tuesday"),
        ),
    ],
    [
      "a value of another type",
      (cursor) =>
        edited(
          cursor,
          at(1, () => 20260101),
        ),
    ],
    [
      "an edited id",
      (cursor) =>
        edited(
          cursor,
          at(2, (id) => `${id.slice(0, -1)}${id.endsWith("0") ? "1" : "0"}`),
        ),
    ],
    [
      "an id that is no uuid",
      (cursor) =>
        edited(
          cursor,
          at(2, () => "-".repeat(36)),
        ),
    ],
    ["another sort", (_cursor, list) => cursorOf(list.otherSort ?? "", list.who)],
    ["another filter", (_cursor, list) => cursorOf(list.otherFilter, list.who)],
    ["another list", (_cursor, list) => cursorOf(list.otherList, list.who === "admin" ? "admin" : "owner")],
    ["garbage", () => "bm90IGEgY3Vyc29y"],
    ["JSON that is no cursor", () => Buffer.from(JSON.stringify({ value: 1 })).toString("base64url")],
  ];
  const names = [
    "public modpacks, newest first",
    "public modpacks by name",
    "my modpacks",
    "the catalogue, newest first",
    "the catalogue by name",
    "a modpack's mods in the catalogue",
    "a modpack's mods in load order",
    "a modpack's mods by name",
    "the admin's users",
  ];

  // The admin's users have one order: no cursor of another sort.
  const applicable = names.flatMap((name) =>
    cases
      .filter(([label]) => !(name === "the admin's users" && label === "another sort"))
      .map(([label, make]) => [name, label, make] as const),
  );
  it.each(applicable)("%s: answers 400 for %s", async (name, _label, make) => {
    const list = lists.get(name) as CursorList;
    const cursor = await make(await cursorOf(list.url, list.who), list);
    const response = await get(`${list.url}&cursor=${encodeURIComponent(cursor)}`, headersOf(list.who));
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      error: { code: "BAD_REQUEST", message: expect.stringMatching(/^Invalid cursor/) },
    });
  });

  it.each(names)("%s: answers the next page for its own cursor", async (name) => {
    const list = lists.get(name) as CursorList;
    const cursor = await cursorOf(list.url, list.who);
    const response = await get(`${list.url}&cursor=${encodeURIComponent(cursor)}`, headersOf(list.who));
    expect(response.statusCode, response.body).toBe(200);
    expect((response.json() as Page).data).toHaveLength(1);
  });
});
