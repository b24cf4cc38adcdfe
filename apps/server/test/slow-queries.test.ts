/**
 * One slow query never takes the others down: slow requests (held on a Postgres advisory lock the
 * test owns, or sleeping past the statement timeout) run beside fast ones. The fast ones answer
 * while the slow ones are held; a statement past the timeout and a wait past the pool timeout
 * answer 503 with Retry-After and the general error body. Postgres only: the embedded database is
 * one connection by design (one process, development and small installs).
 */
import type { Services } from "@modpack/contract";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../src/db/database.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { waitForLockWaiters } from "./support/locks.js";
import { startTestService, type TestService } from "./support/service.js";

const hasPostgres = Boolean(process.env.DATABASE_URL);
const LOCK = 4_242;
const UNAVAILABLE_BODY = {
  error: { message: "Service temporarily unavailable, try again shortly", code: "SERVICE_UNAVAILABLE" },
};

/** GET /mods/tags made slow: it waits for the test's advisory lock, or sleeps, on the service's pool. */
function slowTags(slow: { db?: Db; mode: "lock" | "sleep" }) {
  return (services: Services): Services => ({
    ...services,
    mods: {
      ...services.mods,
      async tags() {
        if (!slow.db) throw new Error("the slow service has no database yet");
        if (slow.mode === "lock") await sql`select pg_advisory_xact_lock_shared(${LOCK})`.execute(slow.db);
        else await sql`select pg_sleep(60)`.execute(slow.db);
        return { tags: [] };
      },
    },
  });
}

describe.skipIf(!hasPostgres)("slow queries beside fast ones (Postgres)", () => {
  let database: TestDatabase;
  let admin: pg.Client;
  const slow: { db?: Db; mode: "lock" | "sleep" } = { mode: "lock" };
  let service: TestService;

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    service = await startTestService({
      database,
      env: { DATABASE_POOL_SIZE: "3", DATABASE_POOL_TIMEOUT_MS: "2000", DATABASE_STATEMENT_TIMEOUT_MS: "0" },
      services: slowTags(slow),
      role: "api",
    });
    slow.db = service.runtime.database.db;
    // The pool's three connections open now, so the tests hold connections rather than wait on connects.
    const db = slow.db;
    await db.connection().execute(async (first) => {
      await db.connection().execute(async (second) => {
        await db.connection().execute((third) => sql`select 1`.execute(third));
        await sql`select 1`.execute(second);
      });
      await sql`select 1`.execute(first);
    });
  });
  afterEach(async () => {
    await admin.query("select pg_advisory_unlock_all()");
  });
  afterAll(async () => {
    await service?.stop();
    await admin?.end();
    await database?.drop();
  });

  const inject = (url: string) => service.app.inject({ method: "GET", url });

  it("answers fast requests while slow ones hold connections, and the slow ones when released", async () => {
    slow.mode = "lock";
    await admin.query("select pg_advisory_lock($1)", [LOCK]);
    const held = [inject("/mods/tags"), inject("/mods/tags")];
    await waitForLockWaiters(admin, 2, held);
    const fast = await Promise.all(
      ["/modpacks/public", "/mods", "/health", "/modpacks/public?search=raven"].map((url) => inject(url)),
    );
    expect(fast.map((response) => response.statusCode)).toEqual([200, 200, 200, 200]);
    await admin.query("select pg_advisory_unlock($1)", [LOCK]);
    expect((await Promise.all(held)).map((response) => response.statusCode)).toEqual([200, 200]);
  });

  it("answers 503 with Retry-After when every connection is held past the pool wait, and recovers", async () => {
    slow.mode = "lock";
    await admin.query("select pg_advisory_lock($1)", [LOCK]);
    const held = [inject("/mods/tags"), inject("/mods/tags"), inject("/mods/tags")];
    await waitForLockWaiters(admin, 3, held);
    const waited = await inject("/modpacks/public");
    expect(waited.statusCode).toBe(503);
    expect(waited.headers["retry-after"]).toBe("1");
    expect(waited.json()).toEqual(UNAVAILABLE_BODY);
    await admin.query("select pg_advisory_unlock($1)", [LOCK]);
    expect((await Promise.all(held)).map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect((await inject("/modpacks/public")).statusCode).toBe(200);
  });
});

describe.skipIf(!hasPostgres)("a statement past the statement timeout (Postgres)", () => {
  const slow: { db?: Db; mode: "lock" | "sleep" } = { mode: "sleep" };
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      env: { DATABASE_STATEMENT_TIMEOUT_MS: "500" },
      services: slowTags(slow),
      role: "api",
    });
    slow.db = service.runtime.database.db;
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("is cancelled: 503 with Retry-After beside a fast request, the pool intact", async () => {
    const inject = (url: string) => service.app.inject({ method: "GET", url });
    const responses = await Promise.all([inject("/mods/tags"), inject("/modpacks/public")]);
    expect(responses.map((response) => response.statusCode)).toEqual([503, 200]);
    expect(responses[0]?.headers["retry-after"]).toBe("1");
    expect(responses[0]?.json()).toEqual(UNAVAILABLE_BODY);
    expect((await inject("/mods")).statusCode).toBe(200);
  });

  it("answers the same 503 with Retry-After on /trpc", async () => {
    const response = await service.app.inject({ method: "GET", url: "/trpc/mods.tags" });
    expect(response.statusCode).toBe(503);
    expect(response.headers["retry-after"]).toBe("1");
  });
});

describe("jit and the statement timeout on the service's connections", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { DATABASE_STATEMENT_TIMEOUT_MS: "4321" }, role: "api" });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("sets them on Postgres connections; the embedded database keeps its defaults", async () => {
    const { rows } = await sql<{ jit: string; timeout: string }>`
      select current_setting('jit') as jit, current_setting('statement_timeout') as timeout
    `.execute(service.runtime.database.db);
    if (hasPostgres) expect(rows[0]).toEqual({ jit: "off", timeout: "4321ms" });
    else expect(rows[0]?.timeout).toBe("0");
  });
});
