/**
 * On Postgres, reads of one fixed shape run as named prepared statements (planned once per
 * connection); searches and array filters, whose best plan depends on the words and tags, and
 * writes stay unnamed. One pooled connection, so every statement lands on the one looked at.
 */
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFixedRead, withPreparedReads } from "../src/db/database.js";
import { createModpack } from "./support/modpacks.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

describe("isFixedRead", () => {
  it.each([
    ['select "id" from "modpacks" where "id" = $1', 1, true],
    ['select "id" from "mods" where "search_text" like $1', 1, false],
    ['select "id" from "mods" where "name" ilike $1', 1, false],
    ['select "id" from "mods" where "tags" && $1', 1, false],
    ['select "id" from "mods" where "platform_mod_ids" @> $1', 1, false],
    ['select "id" from "mods" where "id" in ($1, $2, …)', 17, false],
    ['insert into "modpacks" ("name") values ($1)', 1, false],
    ['update "modpacks" set "name" = $1', 1, false],
  ])("%s with %i values: %s", (text, count, fixed) => {
    expect(
      isFixedRead(
        text,
        Array.from({ length: count }, () => "x"),
      ),
    ).toBe(fixed);
  });
});

const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)("named reads on Postgres", () => {
  let service: TestService;
  let owner: SignedIn;
  let packId: string;

  beforeAll(async () => {
    service = await startTestService({ role: "api", env: { DATABASE_POOL_SIZE: "1" } });
    owner = await signIn(service);
    packId = await createModpack(service, owner, { name: "Named reads", isPublic: true });
  });
  afterAll(() => service?.stop());

  const prepared = async () => {
    const { rows } = await sql<{ statement: string }>`
      select statement from pg_prepared_statements where from_sql = false
    `.execute(service.runtime.database.db);
    return rows.map((row) => row.statement);
  };

  it("prepares a modpack's reads once and leaves searches and writes unnamed", async () => {
    for (let index = 0; index < 3; index++) {
      const read = await service.app.inject({ method: "GET", url: `/modpacks/${packId}`, headers: owner.headers });
      expect(read.statusCode).toBe(200);
    }
    const search = await service.app.inject({ method: "GET", url: "/modpacks/public?search=Named" });
    expect(search.statusCode).toBe(200);
    expect(search.json().data.map((pack: { id: string }) => pack.id)).toContain(packId);
    const statements = await prepared();
    // The resource rule's statement, with the members the read answers.
    expect(statements.some((text) => text.includes("readable_by_anyone") && text.includes("json_agg"))).toBe(true);
    expect(statements.filter((text) => / i?like | && /.test(text))).toEqual([]);
    expect(statements.filter((text) => !text.startsWith("select "))).toEqual([]);
    expect(new Set(statements).size).toBe(statements.length);
  });
});

describe.skipIf(!onPostgres)("the pool Kysely reads through", () => {
  let pool: pg.Pool;
  // One per pool, as the service has: the statement names are the pool's.
  let reads: ReturnType<typeof withPreparedReads>;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    reads = withPreparedReads(pool);
  });
  afterAll(() => pool?.end());

  it("hands out one connection per pooled client, which Kysely keeps its own state on", async () => {
    const first = await reads.connect();
    first.release();
    const second = await reads.connect();
    second.release();
    expect(second).toBe(first);
  });

  it("names a fixed read once and sends a search's select unnamed every time", async () => {
    const fixed = "select $1::int * 2 as doubled";
    const search = "select $1::text as found where 'raven' like $1";
    const connection = await reads.connect();
    try {
      for (let index = 0; index < 2; index++) {
        expect((await connection.query(fixed, [21])).rows).toEqual([{ doubled: 42 }]);
        expect((await connection.query(search, ["raven"])).rows).toEqual([{ found: "raven" }]);
      }
      const { rows } = await connection.query(
        "select statement from pg_prepared_statements where from_sql = false",
        [],
      );
      const statements = (rows as { statement: string }[]).map((row) => row.statement);
      expect(statements.filter((text) => text === fixed)).toHaveLength(1);
      expect(statements).not.toContain(search);
    } finally {
      connection.release();
    }
  });

  it.each([
    ["a fixed read", "select $1::int as answer", [41], ["not a number"], 41],
    ["an unnamed statement", "select $1::int + 1 as answer where 'a' like $2", [41, "a"], ["not a number", "a"], 42],
  ])(
    "answers %s, and refuses a failing one with Postgres's error, leaving the connection usable",
    async (_what, text, values, bad, answer) => {
      const connection = await reads.connect();
      try {
        const { rows } = await connection.query(text, values);
        expect(rows).toEqual([{ answer }]);
        await expect(connection.query(text, bad)).rejects.toMatchObject({ code: "22P02" });
        await expect(connection.query("select 1 / $1::int as answer", [0])).rejects.toMatchObject({ code: "22012" });
        expect((await connection.query(text, values)).rows).toEqual([{ answer }]);
      } finally {
        connection.release();
      }
    },
  );
});
