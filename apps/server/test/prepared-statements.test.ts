/**
 * Named prepared statements (db/prepared-statements.ts): a fixed-shape statement is parsed once per
 * connection and then sent by name; every other statement goes unnamed; a statement a migration
 * made stale (a table it reads with `*` gained a column) is prepared again, transparently outside a
 * transaction and as a retryable 503 inside one. Postgres only: the embedded database has no
 * prepared statements of its own to keep.
 */
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../src/db/database.js";
import { executeNamed, reusableQuery } from "../src/db/reusable-query.js";
import { isDatabaseUnavailable } from "../src/edge/errors.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";

const hasPostgres = Boolean(process.env.DATABASE_URL);

interface Things {
  things: { id: number; name: string; extra?: number | null; more?: number | null };
}

describe.skipIf(!hasPostgres)("named prepared statements (Postgres)", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<Things>;

  /** The statements this connection holds prepared (the pool has one connection). */
  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map(
      (row) => row.statement,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ databaseUrl: database.url, poolSize: 1 });
    db = handle.db as unknown as Kysely<Things>;
    await sql`create table things (id int primary key, name text not null)`.execute(db);
    await sql`insert into things values (1, 'one'), (2, 'two')`.execute(db);
  });

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it("sends a fixed-shape statement by name, parsed once, and leaves the others unnamed", async () => {
    const byId = reusableQuery(["placeholder-id"], (anyDb, id) =>
      (anyDb as unknown as Kysely<Things>).selectFrom("things").selectAll().where("name", "=", id),
    );
    expect(await byId(handle.db, "one")).toEqual([{ id: 1, name: "one" }]);
    expect(await byId(handle.db, "two")).toEqual([{ id: 2, name: "two" }]);
    await db.selectFrom("things").select("id").where("id", ">", 1).execute();
    const statements = await prepared();
    expect(statements).toEqual(['select * from "things" where "name" = $1']);
  });

  it("answers a statement a migration made stale outside a transaction, prepared again", async () => {
    const all = db.selectFrom("things").selectAll().orderBy("id");
    expect(await executeNamed(handle.db, all)).toEqual([
      { id: 1, name: "one" },
      { id: 2, name: "two" },
    ]);
    await sql`alter table things add column extra int`.execute(db);
    expect(await executeNamed(handle.db, all)).toEqual([
      { id: 1, name: "one", extra: null },
      { id: 2, name: "two", extra: null },
    ]);
  });

  it("fails a stale statement inside a transaction as retryable, and the retry succeeds", async () => {
    const all = db.selectFrom("things").selectAll().orderBy("id");
    await executeNamed(handle.db, all);
    await sql`alter table things add column more int`.execute(db);
    const failure = await db
      .transaction()
      .execute((trx) => executeNamed(trx as unknown as DatabaseHandle["db"], all))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toMatchObject({ code: "0A000" });
    expect(isDatabaseUnavailable(failure)).toBe(true);
    const again = await db.transaction().execute((trx) => executeNamed(trx as unknown as DatabaseHandle["db"], all));
    expect(again).toEqual([
      { id: 1, name: "one", extra: null, more: null },
      { id: 2, name: "two", extra: null, more: null },
    ]);
  });
});

describe.skipIf(!hasPostgres)("named prepared statements switched off (Postgres)", () => {
  it("sends every statement unnamed", async () => {
    const database = await createTestDatabase();
    const handle = await openDatabase({ databaseUrl: database.url, poolSize: 1, preparedStatements: false });
    try {
      const db = handle.db as unknown as Kysely<Things>;
      await sql`create table things (id int primary key, name text not null)`.execute(db);
      expect(await executeNamed(handle.db, db.selectFrom("things").selectAll())).toEqual([]);
      const { rows } = await sql<{ count: number }>`select count(*)::int as count from pg_prepared_statements`.execute(
        db,
      );
      expect(rows).toEqual([{ count: 0 }]);
    } finally {
      await handle.close();
      await database.drop();
    }
  });
});
