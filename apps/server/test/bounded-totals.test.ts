/**
 * The whole catalogue counts exactly up to 1,000 and above that answers an estimate,
 * `totalExact: false`. The page's statement reads the row count Postgres's statistics keep of the
 * table; one kept from when the table was empty (the migrations analyse the new tables, and the
 * embedded database runs no autovacuum to update it) must not stand for a catalogue of thousands:
 * then the planner's estimate, which follows the table's size, answers.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;

/** Mods in the catalogue, well above the exact-count limit of 1,000. */
const ROWS = 4_000;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service);
  const db = service.runtime.database.db;
  await sql`
    insert into mods (workshop_id, name, description)
    select (7000000 + i)::text, 'Bulk mod ' || i, 'one of many'
    from generate_series(1, ${ROWS}) as i
  `.execute(db);
});

afterAll(async () => {
  await service?.stop();
});

describe("the whole catalogue's total above the exact-count limit", () => {
  it.each([
    ["by name", "/mods?limit=5"],
    ["by update time", "/mods?limit=5&sortBy=updatedAt&sortOrder=desc"],
    ["past a page", "/mods?limit=5&page=3"],
  ])("%s: an estimate that follows the table's size, flagged as one", async (_name, url) => {
    const response = await service.app.inject({ method: "GET", url, headers: owner.headers });
    expect(response.statusCode).toBe(200);
    const { data, pagination } = response.json();
    expect(data).toHaveLength(5);
    expect(pagination.totalExact).toBe(false);
    // Not the statistics' stale 0 raised to the least a total above the limit can be (1,001): the
    // planner's estimate from the table's pages, which guesses the rows a page holds.
    expect(pagination.total).toBeGreaterThan(1_500);
    expect(pagination.total).toBeLessThan(ROWS * 2);
    expect(pagination.totalPages).toBe(Math.ceil(pagination.total / 5));
  });
});
