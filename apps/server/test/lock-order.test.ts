/**
 * Writers that lock several catalogue rows take them in one order (`inLockOrder`), so two of them
 * never deadlock on the same mods. Each case runs two writers that would take the same mods in
 * opposite orders (by their inputs, or by the order a statement finds the rows in), while other
 * transactions hold mods that only one of them needs: the first writer starts, takes what it can
 * and waits on a held mod; then the second starts and waits too; then the held mods are released.
 * Locking in their own orders, each writer would by then hold a mod the other needs next, and
 * Postgres would cancel one with a deadlock. Locking in one order, the second writer waits for the
 * first and both complete. Postgres only: the embedded database runs one statement at a time.
 */
import type { Caller } from "@modpack/contract";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle, Db } from "../src/db/database.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { linkMods } from "../src/db/modpack-mods.js";
import { upsertWorkshopItems } from "../src/db/mods.js";
import type { ModRow } from "../src/db/schema.js";
import { runModUpdate } from "../src/jobs/mod-update.js";
import { reparseBatch } from "../src/jobs/reparse.js";
import { modpacksService } from "../src/services/modpacks.js";
import type { WorkshopClient } from "../src/workshop/client.js";
import { PARSER_VERSION } from "../src/workshop/description.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { waitForLockWaiters } from "./support/locks.js";
import { workshopItem } from "./support/workshop.js";

const hasPostgres = Boolean(process.env.DATABASE_URL);

/** Four catalogue mods; the writers below name them out of workshop-id order. */
const A = "3200000001";
const B = "3200000002";
const C = "3200000003";
const D = "3200000004";

/** Ids in the other order from the workshop ids. */
const REVERSED_IDS = new Map([
  [A, "f0000000-0000-4000-8000-000000000000"],
  [B, "c0000000-0000-4000-8000-000000000000"],
  [C, "80000000-0000-4000-8000-000000000000"],
  [D, "40000000-0000-4000-8000-000000000000"],
]);

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

  /**
   * A new modpack and the four mods in a new state, so each case starts from the same rows. Their
   * ids, and their rows' places in the table, run the other way from their workshop ids (D, C, B, A):
   * a statement that locks rows in the order it finds them, by id or by a scan of the table, would
   * take D first where the lock order takes A first.
   */
  async function freshRows(): Promise<Map<string, ModRow>> {
    const db = handle.db;
    await db.deleteFrom("modpackMods").execute();
    await db.deleteFrom("mods").execute();
    ({ id: modpackId } = await db
      .insertInto("modpacks")
      .values({ name: "Pack", description: null, avatarUrl: null, platformUrl: null, ownerId, metadata: "{}" })
      .returning("id")
      .executeTakeFirstOrThrow());
    await upsertWorkshopItems(
      db,
      [A, B, C, D].map((id) => workshopItem(id)),
    );
    for (const [workshopId, id] of [...REVERSED_IDS].reverse()) {
      await db.updateTable("mods").set({ id }).where("workshopId", "=", workshopId).execute();
    }
    const rows = await db.selectFrom("mods").selectAll().execute();
    return new Map(rows.map((row) => [row.workshopId, row]));
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
        // The modpack holds B, C and A: written, added and named in that order, so that a copy
        // reading its links in any of those orders would take them out of lock order.
        before: async (db, mods) => {
          for (const [workshopId, name] of [
            [B, "Alpha"],
            [C, "Beta"],
            [A, "Gamma"],
          ] as const) {
            await db.updateTable("mods").set({ name }).where("workshopId", "=", workshopId).execute();
          }
          await db
            .insertInto("modpackMods")
            .values(
              rows(mods, B, C, A).map((mod, index) => ({
                modpackId,
                modId: mod.id,
                addedBy: ownerId,
                addedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)),
              })),
            )
            .execute();
        },
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
    // The first writer takes what it can and waits on C; only then does the second start.
    const first = writers.first(handle.db, mods);
    let second: Promise<unknown> | undefined;
    try {
      await waitForLockWaiters(admin, 1, [first]);
      second = writers.second(handle.db, mods);
      await waitForLockWaiters(admin, 2, [first, second]);
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

  /** A workshop where the items `gone` are missing and the others unchanged. */
  const workshopWithout = (gone: Set<string>) =>
    ({
      async getItems(ids: string[]) {
        return ids.map((workshopId) =>
          gone.has(workshopId)
            ? { ok: false as const, workshopId, reason: "missing" as const }
            : { ok: true as const, item: workshopItem(workshopId) },
        );
      },
    }) as unknown as WorkshopClient;

  // These modpacks have no webhooks, so a run queues no deliveries: this database has no job queue.
  const noWebhookJobs = {
    send: async (): Promise<string | null> => {
      throw new Error("a delivery was queued for a modpack without webhooks");
    },
  };

  interface JobCase {
    /** Rows the job needs before it starts. */
    before?(db: Db): Promise<unknown>;
    run(db: Db): Promise<unknown>;
    /** What the job left, once both writers completed. */
    check(): Promise<void>;
  }

  const jobCases: [string, JobCase][] = [
    [
      "the mod update's deactivation of mods gone from the workshop",
      {
        run: (db) => runModUpdate({ db, workshop: workshopWithout(new Set([A, B, D])), jobs: noWebhookJobs }),
        check: async () => {
          const active = await sql<{ workshopId: string; isActive: boolean }>`
            select workshop_id, is_active from mods order by workshop_id`.execute(handle.db);
          expect(active.rows).toEqual([A, B, C, D].map((workshopId) => ({ workshopId, isActive: workshopId === C })));
        },
      },
    ],
    [
      "the reparse of mods an older parser read",
      {
        before: (db) => db.updateTable("mods").set({ parserVersion: 0 }).where("workshopId", "in", [A, B, D]).execute(),
        run: (db) => reparseBatch(db),
        check: async () => {
          const versions = await handle.db.selectFrom("mods").select("parserVersion").distinct().execute();
          expect(versions).toEqual([{ parserVersion: PARSER_VERSION }]);
        },
      },
    ],
  ];

  // The job needs A, B and D, which it would find in the order D, B, A; the link insert needs all
  // four, and C is held. Locking as found, the job would hold D and wait on B, which the link insert
  // holds, while the link insert, once C is released, would wait on D.
  it.each(jobCases)("%s while links to the same mods are being made: both complete", async (_name, job) => {
    const mods = await freshRows();
    await job.before?.(handle.db);
    const heldC = await hold(C);
    const linking = linkMods(handle.db, modpackId, rows(mods, A, B, C, D), ownerId);
    let running: Promise<unknown> | undefined;
    try {
      await waitForLockWaiters(admin, 1, [linking]);
      running = job.run(handle.db);
      await waitForLockWaiters(admin, 2, [linking, running]);
    } finally {
      await heldC.release();
    }
    const outcomes = await Promise.allSettled([linking, running]);
    expect(outcomes.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "done"))).toEqual([
      "done",
      "done",
    ]);
    await job.check();
  });
});
