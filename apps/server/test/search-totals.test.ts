/**
 * A search or filter page counts only the matches its own statement read: its `total` is exact
 * (`totalExact: true`) when that statement saw every match (the page reaches the end, or it read
 * and sorted all of them), and otherwise the planner's estimate, flagged `totalExact: false`, with
 * no second read of the matches to count them.
 */
import { CompiledQuery, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnySelect, estimatedCount } from "../src/db/counts.js";
import { readableBy } from "../src/db/modpacks.js";
import { modSearchCondition, modTagsCondition } from "../src/db/mods.js";
import { searchTextCondition } from "../src/db/search-text.js";
import { statementsOf } from "./support/query-count.js";
import { insertModpack, insertMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;
let pack: string;
/** A modpack of the 1,100 filler mods, then the 30 "totalword" and the 5 "zzrareword" mods. */
let walked: string;

/** Mods whose text holds "totalword": 30, each tagged `Totaltag`. */
const WORDS = 30;
/** Mods whose text holds "zzrareword": 5, last in name order. */
const RARE = 5;
/** Public modpacks whose name holds "totalpack". */
const PACKS = 8;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service);
  const db = service.runtime.database.db;
  const words = await insertMods(
    service,
    Array.from({ length: WORDS }, (_, index) => ({
      workshopId: String(6_100_000 + index),
      name: `Totalword ${String(index).padStart(2, "0")}`,
      description: "counted as far as the page reads",
      tags: ["Totaltag"],
    })),
  );
  const rare = await insertMods(
    service,
    Array.from({ length: RARE }, (_, index) => ({
      workshopId: String(6_200_000 + index),
      name: `Zzrareword ${index}`,
      description: "found behind every other mod",
    })),
  );
  // More rows than a page walks through before the matches, in name order: a page by name reads
  // every match from the index instead.
  await sql`
    insert into mods (workshop_id, name, description)
    select (6300000 + i)::text, 'Aaafiller ' || i, 'not a match'
    from generate_series(1, 1100) as i
  `.execute(db);
  pack = await insertModpack(service, { ownerId: owner.userId, name: "Totals", modIds: words.map((mod) => mod.id) });
  // The same rows inside one modpack: its matches sit behind more links than a page walks, in load
  // order and by name, so such a page reads every match of the modpack instead.
  const fillers = await db
    .selectFrom("mods")
    .select("id")
    .where("name", "like", "Aaafiller %")
    .orderBy("name")
    .execute();
  walked = await insertModpack(service, {
    ownerId: owner.userId,
    name: "Walked",
    modIds: [...fillers.map((mod) => mod.id), ...words.map((mod) => mod.id), ...rare.map((mod) => mod.id)],
  });
  for (let index = 0; index < PACKS; index++) {
    await insertModpack(service, { ownerId: owner.userId, name: `Totalpack ${index}`, isPublic: true });
  }
  await sql`analyze mods`.execute(db);
  await sql`analyze modpacks`.execute(db);
  await sql`analyze modpack_mods`.execute(db);
});

afterAll(async () => {
  await service?.stop();
});

interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  totalExact?: boolean;
  nextCursor?: string | null;
}
interface Page {
  data: { id: string }[];
  pagination: Pagination;
}

async function read(url: string): Promise<Page> {
  const response = await service.app.inject({ method: "GET", url, headers: owner.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Page;
}

/** What a page must say of its total: exact and this many, or estimated. */
type Expected = { exact: number } | "estimated";

describe("totalExact: a page is exact only when its statement saw every match", () => {
  // name, url (`{pack}` is the modpack of the 30 "totalword" mods, `{walked}` the one with the
  // fillers before them), the rows answered, the total
  const cases: [string, string, number, Expected][] = [
    ["a first page that reaches the end", "/mods?search=totalword&limit=100", WORDS, { exact: WORDS }],
    ["a last page by number", "/mods?search=totalword&limit=10&page=3", 10, { exact: WORDS }],
    ["no match", "/mods?search=zzqxj", 0, { exact: 0 }],
    [
      "a page found along the sort order, matches left unread",
      "/mods?search=totalword&limit=10&sortBy=name&sortOrder=desc",
      10,
      "estimated",
    ],
    [
      "a page of matches behind more rows than a walk reads: every match read and sorted",
      "/mods?search=totalword&limit=10&sortBy=name&sortOrder=asc",
      10,
      { exact: WORDS },
    ],
    ["a few matches at the end of the sort order", "/mods?search=zzrareword&limit=2", 2, { exact: RARE }],
    ["a tag filter that reaches the end", "/mods?tags=Totaltag&limit=50", WORDS, { exact: WORDS }],
    ["a tag filter found along the sort order", "/mods?tags=Totaltag&limit=5&sortBy=createdAt", 5, "estimated"],
    ["public modpacks, to the end", "/modpacks/public?search=totalpack&limit=20", PACKS, { exact: PACKS }],
    ["public modpacks, a first page", "/modpacks/public?search=totalpack&limit=3", 3, "estimated"],
    ["a modpack's mods in load order", "/modpacks/{pack}/mods?search=totalword&limit=10", 10, "estimated"],
    [
      "a modpack's mods by name, to the end",
      "/modpacks/{pack}/mods?search=totalword&limit=50&sortBy=name",
      WORDS,
      { exact: WORDS },
    ],
    [
      "a modpack's mods by a catalogue column: every match sorted",
      "/modpacks/{pack}/mods?search=totalword&limit=10&sortBy=updatedAt",
      10,
      { exact: WORDS },
    ],
    ["a modpack in the catalogue by name", "/mods?modpackId={pack}&search=totalword&limit=10", 10, "estimated"],
    [
      "a modpack in the catalogue by a catalogue column: every match sorted",
      "/mods?modpackId={pack}&search=totalword&limit=10&sortBy=createdAt",
      10,
      { exact: WORDS },
    ],
    [
      "a modpack's mods in load order, behind more links than a walk reads: every match read",
      "/modpacks/{walked}/mods?search=totalword&limit=10",
      10,
      { exact: WORDS },
    ],
    [
      "a modpack's mods by name, behind more links than a walk reads: every match read",
      "/modpacks/{walked}/mods?search=totalword&limit=10&sortBy=name",
      10,
      { exact: WORDS },
    ],
    [
      "a modpack in the catalogue by name, behind more links than a walk reads: every match read",
      "/mods?modpackId={walked}&search=totalword&limit=10",
      10,
      { exact: WORDS },
    ],
    [
      "a modpack's few matches last by name",
      "/modpacks/{walked}/mods?search=zzrareword&limit=2&sortBy=name",
      2,
      {
        exact: RARE,
      },
    ],
    [
      "a modpack's mods by name, found along the walk",
      "/modpacks/{walked}/mods?search=aaafiller&limit=10&sortBy=name",
      10,
      "estimated",
    ],
    [
      "a second page by number, behind more links than a walk reads: every match read",
      "/modpacks/{walked}/mods?search=totalword&limit=10&page=2&sortBy=name",
      10,
      { exact: WORDS },
    ],
    [
      "a modpack's mods by name, descending: found along the walk",
      "/modpacks/{walked}/mods?search=totalword&limit=10&sortBy=name&sortOrder=desc",
      10,
      "estimated",
    ],
  ];

  it.each(cases)("%s: %s", async (_name, url, rows, expected) => {
    const { data, pagination } = await read(url.replace("{pack}", pack).replace("{walked}", walked));
    expect(data).toHaveLength(rows);
    expect(pagination.totalPages).toBe(Math.ceil(pagination.total / pagination.limit));
    if (expected === "estimated") {
      expect(pagination.totalExact).toBe(false);
      // Never fewer than the page proves there are: its rows and the one past it.
      expect(pagination.total).toBeGreaterThan((pagination.page - 1) * pagination.limit + rows);
    } else {
      expect(pagination).toMatchObject({ total: expected.exact, totalExact: true });
    }
  });
});

describe("totalExact after a cursor", () => {
  // name, the first page's url, the total of every page after it
  const cases: [string, string, Expected][] = [
    ["a walk along the sort order", "/mods?search=totalword&limit=10&sortBy=name&sortOrder=desc", "estimated"],
    [
      "every match of a modpack sorted",
      "/modpacks/{pack}/mods?search=totalword&limit=10&sortBy=updatedAt",
      { exact: WORDS },
    ],
    // Past the first page the walk starts at the cursor, where the matches are: found along it.
    ["a modpack's links walked by name", "/modpacks/{walked}/mods?search=totalword&limit=10&sortBy=name", "estimated"],
    ["a modpack's links walked in load order", "/modpacks/{walked}/mods?search=totalword&limit=10", "estimated"],
    ["a modpack in the catalogue walked by name", "/mods?modpackId={walked}&search=totalword&limit=10", "estimated"],
    [
      "a modpack's links walked by name, descending",
      "/modpacks/{walked}/mods?search=totalword&limit=10&sortBy=name&sortOrder=desc",
      "estimated",
    ],
  ];

  it.each(cases)("%s: %s", async (_name, template, expected) => {
    const url = template.replace("{pack}", pack).replace("{walked}", walked);
    const first = await read(url);
    const seen = first.data.map((row) => row.id);
    let cursor = first.pagination.nextCursor;
    while (cursor) {
      const next = await read(`${url}&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...next.data.map((row) => row.id));
      if (expected === "estimated") expect(next.pagination.totalExact).toBe(false);
      else expect(next.pagination).toMatchObject({ total: expected.exact, totalExact: true });
      cursor = next.pagination.nextCursor;
    }
    // Pages and cursors stay exact whatever the total says: the pages, one after the other, are
    // the rows of one page holding every match, in its order.
    const whole = await read(url.replace("limit=10", "limit=100"));
    expect(whole.data).toHaveLength(WORDS);
    expect(seen).toEqual(whole.data.map((row) => row.id));
  });
});

describe("an estimated total costs the planner, not a second read of the matches nor a second statement", () => {
  it.each([
    // The page's statement is one read, its walk and fallback in common table expressions.
    ["exact: the page's statement alone", "/mods?search=totalword&limit=100", ["with"]],
    ["exact: every match read and sorted", "/mods?search=totalword&limit=10&sortBy=name&sortOrder=asc", ["with"]],
    [
      "estimated: the page carries the planner's estimate",
      "/mods?search=totalword&limit=10&sortBy=name&sortOrder=desc",
      ["with"],
    ],
  ])("%s", async (_name, url, kinds) => {
    const { result, statements } = await statementsOf(service, () =>
      service.app.inject({ method: "GET", url: url.replace("{pack}", pack) }),
    );
    expect(result.statusCode).toBe(200);
    expect(statements.map((statement) => statement.trimStart().split(/\s/)[0])).toEqual(kinds);
  });
});

describe("an estimated total is the planner's estimate of every match, on the first page and past it", () => {
  // name, the first page's url, the same matches as the list's query builder selects them
  const cases: [string, string, () => AnySelect][] = [
    [
      "a word",
      "/mods?search=totalword&limit=10&sortBy=name&sortOrder=desc",
      () => catalogue().where(modSearchCondition("totalword")),
    ],
    [
      "a workshop id's digits: a word, an in-game id and a workshop id",
      "/mods?search=6100&limit=10&sortBy=name&sortOrder=desc",
      () => catalogue().where(modSearchCondition("6100")),
    ],
    [
      "a tag",
      "/mods?tags=Totaltag&limit=10&sortBy=name&sortOrder=desc",
      () => catalogue().where(modTagsCondition(["Totaltag"])),
    ],
    [
      "a word and a tag",
      "/mods?search=totalword&tags=Totaltag&limit=10&sortBy=name&sortOrder=desc",
      () =>
        catalogue()
          .where(modSearchCondition("totalword"))
          .where(modTagsCondition(["Totaltag"])),
    ],
    [
      "the public modpacks of a word",
      "/modpacks/public?search=totalpack&limit=3&sortOrder=desc",
      () =>
        service.runtime.database.db
          .selectFrom("modpacks")
          .where(readableBy(null))
          .where(searchTextCondition("modpacks.searchText", "totalpack")),
    ],
  ];
  const catalogue = () => service.runtime.database.db.selectFrom("mods");
  /** A page as a visitor reads it: the statements counted are the page's alone. */
  const visit = async (url: string) => {
    const response = await service.app.inject({ method: "GET", url });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Page;
  };
  /** The total a page answers for an estimate: never fewer than the rows it read (its page and the one past it). */
  const totalOf = (estimate: number, page: Page) =>
    Math.max(estimate, page.data.length + (page.pagination.nextCursor ? 1 : 0));

  it.each(cases)("%s", async (_name, url, matches) => {
    const estimate = await estimatedCount(service.runtime.database.db, matches());
    const first = await statementsOf(service, () => visit(url));
    expect(first.result.pagination).toMatchObject({ totalExact: false, total: totalOf(estimate, first.result) });
    expect(first.statements).toHaveLength(1);
    const cursor = first.result.pagination.nextCursor;
    expect(cursor).toBeTruthy();
    const next = await statementsOf(service, () => visit(`${url}&cursor=${encodeURIComponent(cursor ?? "")}`));
    expect(next.result.pagination).toMatchObject({ totalExact: false, total: totalOf(estimate, next.result) });
    expect(next.statements).toHaveLength(1);
  });
});

describe("planned_rows: the estimate a page carries is the planner's, as an explain sent with the values gets it", () => {
  // name, a query whose `$1[n]` is the nth value, the values (text, as the page hands them over)
  const cases: [string, string, string[]][] = [
    [
      "a word of thirty mods",
      "select 1 from mods as r where r.search_text like '%' || search_normalize($1[1]) || '%'",
      ["totalword"],
    ],
    [
      "a word of five mods",
      "select 1 from mods as r where r.search_text like '%' || search_normalize($1[1]) || '%'",
      ["zzrareword"],
    ],
    [
      "two words, an in-game id and a workshop id",
      "select 1 from mods as r where (r.search_text like '%' || search_normalize($1[1]) || '%' and strpos(r.search_text, search_normalize($1[2])) > 0 or r.platform_mod_ids @> array[$1[3]]::text[] or r.workshop_id = $1[4])",
      ["aaafiller", "1", "aaafiller 1", "6300001"],
    ],
    [
      "a tag, handed over as an array's text",
      "select 1 from mods as r where r.tags && $1[1]::text[]",
      ['{"Totaltag"}'],
    ],
    ["a tag no mod has", "select 1 from mods as r where r.tags && $1[1]::text[]", ['{"Nosuchtag"}']],
    [
      "the public modpacks of a word",
      "select 1 from modpacks as r where r.is_active and r.is_public and r.search_text like '%' || search_normalize($1[1]) || '%'",
      ["totalpack"],
    ],
    ["no value", "select 1 from mods as r where true", []],
  ];

  it.each(cases)("%s", async (_name, query, values) => {
    const db = service.runtime.database.db;
    const planned = await sql<{ rows: number }>`select planned_rows(${query}, ${values}::text[]) as rows`.execute(db);
    // The same query as a client sends it: `$n` for the nth value, the values bound.
    const asSent = query.replace(/\$1\[(\d+)\]/g, (_match, index: string) => `$${index}`);
    const explained = await db.executeQuery<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
      CompiledQuery.raw(`explain (format json) ${asSent}`, values),
    );
    const expected = explained.rows[0]?.["QUERY PLAN"][0].Plan["Plan Rows"];
    expect(expected).toBeTypeOf("number");
    expect(planned.rows[0]?.rows).toBe(Math.round(expected ?? Number.NaN));
  });
});
