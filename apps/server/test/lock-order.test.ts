/**
 * Writers that lock several catalogue rows take them in one order (`inLockOrder`), so two of them
 * never deadlock on the same mods. Each case starts two writers whose inputs name the same mods in
 * opposite orders, while two other transactions hold one mod each that only one writer needs.
 * Locking in input order, each writer would take a mod the other needs next and then wait on a held
 * one; once those are released, each would wait on the other and Postgres would cancel one with a
 * deadlock. Locking in one order, the second writer waits for the first and both complete. Postgres
 * only: the embedded database runs one statement at a time.
 */
import type { Caller } from "@modpack/contract";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle, Db } from "../src/db/database.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import type { ModRow } from "../src/db/schema.js";
import { runModUpdate } from "../src/jobs/mod-update.js";
import { linkMods } from "../src/services/modpack-mods.js";
import { modpacksService } from "../src/services/modpacks.js";
import { upsertWorkshopItems } from "../src/services/mods.js";
import type { WorkshopClient } from "../src/workshop/client.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { workshopItem } from "./support/workshop.js";

const hasPostgres = Boolean(process.env.DATABASE_URL);

/** Four catalogue mods; the writers below name them out of workshop-id order. */
const A = "3200000001";
const B = "3200000002";
const C = "3200000003";
const D = "3200000004";

interface Writers {
  /** Rows the writers need before they start. */
  before?(db: Db, mods: Map<string, ModRow>): Promise<unknown>;
  /** The mods the first writer needs; the held one (`C`) is last in lock order. */
  first(db: Db, mods: Map<string, ModRow>): Promise<unknown>;
  /** The mods the second writer needs; the held one (`D`) is last in lock order. */
  second(db: Db, mods: Map<string, ModRow>): Promise<unknown>;
}

const rows = (mods: Map<string, ModRow>, ...ids: string[]) => ids.map((id) => mods.get(id) as ModRow);
const refreshed = (...ids: string[]) => ids.map((id) => workshopItem(id, { title: `Renamed ${id}`, tags: ["Map"] }));

describe.skipIf(!hasPostgres)("lock order of the catalogue's writers (Postgres)", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let admin: pg.Client;
  let ownerId: string;
  let modpackId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ databaseUrl: database.url, dataDir: database.dataDir, poolSize: 6 });
    await migrateToLatest(handle.db);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    ({ id: ownerId } = await handle.db
      .insertInto("users")
      .values({ name: "Owner", email: null, image: null })
      .returning("id")
      .executeTakeFirstOrThrow());
  });

  afterAll(async () => {
    await admin?.end();
    await handle?.close();
    await database?.drop();
  });

  const owner = (): Caller => ({
    userId: ownerId,
    role: "user",
    sessionId: null,
    tokenId: null,
    expiresAt: new Date(Date.now() + 3_600_000),
  });

  /** A new modpack and the four mods in a new state, so each case starts from the same rows. */
  async function freshRows(): Promise<Map<string, ModRow>> {
    const db = handle.db;
    await db.deleteFrom("modpackMods").execute();
    await db.deleteFrom("mods").execute();
    ({ id: modpackId } = await db
      .insertInto("modpacks")
      .values({ name: "Pack", description: null, avatarUrl: null, platformUrl: null, ownerId, metadata: "{}" })
      .returning("id")
      .executeTakeFirstOrThrow());
    const inserted = await upsertWorkshopItems(
      db,
      [A, B, C, D].map((id) => workshopItem(id)),
    );
    return new Map(inserted.map((row) => [row.workshopId, row]));
  }

  /** A transaction of its own holding `workshopId`'s row `for update` until `release` is called. */
  async function hold(workshopId: string): Promise<{ release(): Promise<void> }> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("begin");
    await client.query("select id from mods where workshop_id = $1 for update", [workshopId]);
    return {
      async release() {
        await client.query("commit");
        await client.end();
      },
    };
  }

  /** Resolves once `count` sessions of this database wait for a lock; fails when a writer settles first. */
  async function waitForLockWaits(count: number, writers: Promise<unknown>[]): Promise<void> {
    let settled = false;
    for (const writer of writers) {
      writer.then(
        () => {
          settled = true;
        },
        () => {
          settled = true;
        },
      );
    }
    for (;;) {
      if (settled) throw new Error("a writer finished before both were waiting");
      const { rows: waiting } = await admin.query<{ count: number }>(
        `select count(*)::int as count from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if ((waiting[0]?.count ?? 0) >= count) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  const cases: [string, Writers][] = [
    [
      "a link insert and a catalogue refresh",
      {
        first: (db, mods) => linkMods(db, modpackId, rows(mods, B, C, A), ownerId),
        second: (db) => upsertWorkshopItems(db, refreshed(A, D, B)),
      },
    ],
    [
      "two catalogue refreshes (two imports' batches)",
      {
        first: (db) => db.transaction().execute((trx) => upsertWorkshopItems(trx, refreshed(B, C, A))),
        second: (db) => db.transaction().execute((trx) => upsertWorkshopItems(trx, refreshed(A, D, B))),
      },
    ],
    [
      "an import's batch (refresh, then links) and a link insert",
      {
        first: (db) =>
          db.transaction().execute(async (trx) => {
            const stored = await upsertWorkshopItems(trx, refreshed(B, C, A));
            await linkMods(trx, modpackId, stored, ownerId);
          }),
        second: (db, mods) => linkMods(db, modpackId, rows(mods, A, D, B), ownerId),
      },
    ],
    [
      "a modpack's copy and a catalogue refresh",
      {
        // The modpack holds B, C and A, linked in that order; its copy links the same mods.
        before: (db, mods) => linkMods(db, modpackId, rows(mods, B, C, A), ownerId),
        first: async (db) => {
          const service = modpacksService(db);
          const modpack = await service.authorize(owner(), modpackId, "read");
          return service.duplicate(owner(), modpack, { id: modpackId });
        },
        second: (db) => upsertWorkshopItems(db, refreshed(A, D, B)),
      },
    ],
  ];

  it.each(cases)("%s, naming the same mods in opposite orders, both complete", async (_name, writers) => {
    const mods = await freshRows();
    await writers.before?.(handle.db, mods);
    const heldC = await hold(C);
    const heldD = await hold(D);
    const first = writers.first(handle.db, mods);
    const second = writers.second(handle.db, mods);
    try {
      await waitForLockWaits(2, [first, second]);
    } finally {
      await heldC.release();
      await heldD.release();
    }
    const outcomes = await Promise.allSettled([first, second]);
    expect(outcomes.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "done"))).toEqual([
      "done",
      "done",
    ]);
  });

  it("answers an upsert's rows in the items' order, and links in the given order", async () => {
    await freshRows();
    const stored = await upsertWorkshopItems(handle.db, refreshed(C, A, D, B, A));
    expect(stored.map((row) => row.workshopId)).toEqual([C, A, D, B]);
    const links = await linkMods(handle.db, modpackId, [...stored].reverse(), ownerId);
    expect(links.map((link) => link.modId)).toEqual([...stored].reverse().map((row) => row.id));
    const order = await handle.db
      .selectFrom("modpackMods")
      .innerJoin("mods", "mods.id", "modpackMods.modId")
      .select(["mods.workshopId", "modpackMods.modName"])
      .where("modpackMods.modpackId", "=", modpackId)
      .orderBy("modpackMods.addedAt")
      .execute();
    expect(order).toEqual([B, D, A, C].map((workshopId) => ({ workshopId, modName: `Renamed ${workshopId}` })));
  });

  it("deactivates mods gone from the workshop while links to them are being made", async () => {
    const mods = await freshRows();
    const gone = new Set([A, B, D]);
    const workshop = {
      async getItems(ids: string[]) {
        return ids.map((workshopId) =>
          gone.has(workshopId)
            ? { ok: false as const, workshopId, reason: "missing" as const }
            : { ok: true as const, item: workshopItem(workshopId) },
        );
      },
    } as unknown as WorkshopClient;
    const heldC = await hold(C);
    const linking = linkMods(handle.db, modpackId, rows(mods, B, C, A), ownerId);
    await waitForLockWaits(1, [linking]);
    const updating = runModUpdate({ db: handle.db, workshop });
    await waitForLockWaits(2, [linking, updating]);
    await heldC.release();
    const outcomes = await Promise.allSettled([linking, updating]);
    expect(outcomes.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "done"))).toEqual([
      "done",
      "done",
    ]);
    const active = await sql<{ workshopId: string; isActive: boolean }>`
      select workshop_id, is_active from mods order by workshop_id`.execute(handle.db);
    expect(active.rows).toEqual([A, B, C, D].map((workshopId) => ({ workshopId, isActive: !gone.has(workshopId) })));
  });
});
