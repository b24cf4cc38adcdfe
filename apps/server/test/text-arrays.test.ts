/**
 * Text arrays through a real database: whatever text a `text[]` holds comes back as it went in,
 * read by pg's parser on Postgres and by PGlite's on the embedded database.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../src/db/database.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";

let database: TestDatabase;
let handle: DatabaseHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await openDatabase({ databaseUrl: database.url, dataDir: database.dataDir, poolSize: 1 });
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

/** The array as the database gives it back, after a trip through a `text[]` value. */
async function roundTrip(items: (string | null)[]): Promise<unknown> {
  const { rows } = await sql<{ items: unknown }>`select ${items}::text[] as items`.execute(handle.db);
  return rows[0]?.items;
}

describe("text arrays", () => {
  const arrays: [string, (string | null)[]][] = [
    ["empty", []],
    ["workshop ids", ["3100000001", "2392709985"]],
    ["in-game ids", ["Brita", "Arsenal(26)GunFighter", "tsarslib", "Mod-Name_2.0"]],
    ["tags with spaces", ["Build 42", "Weapons", "Map"]],
    ["every whitespace Postgres quotes", ["a b", "a\tb", "a\nb", "a\rb", "a\vb", "a\fb", " lead", "trail "]],
    ["other spaces, left unquoted", ["a\u00a0b", "a\u2003b"]],
    ["quotes, backslashes and braces", ['say "hi"', "C:\\mods\\", "{a,b}", "x}", "{", "a,b", '"', "\\"]],
    ["the word NULL and empty text", ["NULL", "null", "Null", "", " "]],
    ["non-ASCII", ["Карта", "日本語 マップ", "émoji 😀", "ß"]],
    ["a NULL element, read by pg's parser", ["a", null, "b"]],
    ["one long element", ["x".repeat(5_000)]],
    ["many elements", Array.from({ length: 500 }, (_, index) => (index % 3 === 0 ? `tag ${index}` : `id${index}`))],
  ];
  it.each(arrays)("%s come back as they went in", async (_label, items) => {
    expect(await roundTrip(items)).toEqual(items);
  });
});
