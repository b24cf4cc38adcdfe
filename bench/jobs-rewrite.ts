/**
 * The catalogue-rewrite phase of `pnpm bench:jobs`: what keeping the stored search text costs a
 * write. The mod-update job (`runModUpdate`, the daily job's own function, run in this process)
 * rereads `mods` catalogue mods from the Steam stand-in, which serves each round a new name and a
 * new description for every one of them, so the job rewrites every mod's name and description.
 *
 * Three databases hold the same catalogue: `<name>_search` as migrated; `<name>_plain`, a copy of it
 * without the search text's trigger and trigram index; `<name>_trigger`, a copy without the index
 * only. Each round runs the job on all three, in an order that rotates, so background load falls on
 * each alike; the difference of their times over the rows written is what the trigger and the index
 * cost per written row, and how it splits between them.
 */
import { type Db, openDatabase } from "@modpack/server/db/database";
import { migrateToLatest } from "@modpack/server/db/migrate";
import { upsertWorkshopItems } from "@modpack/server/db/mods";
import { runModUpdate } from "@modpack/server/jobs/mod-update";
import { type FakeItem, fakeItem, startFakeSteam } from "@modpack/server/test/fixtures/steam-api";
import { createWorkshopClient } from "@modpack/server/workshop/client";
import { sql } from "kysely";
import { modItem, rng } from "./data.js";
import { createDatabase, databaseUrlOf, dropDatabase } from "./databases.js";
import { median } from "./load.js";

/** The job asks the workshop for this many items at a time; the seed writes them the same way. */
const BATCH = 100;
const DAY_SECONDS = 86_400;

const VARIANTS = ["search", "trigger", "plain"] as const;
type Variant = (typeof VARIANTS)[number];

/** Milliseconds of the job's run on each database in one round. */
export type RewriteRound = { round: number } & Record<Variant, number>;

/** The stand-in items of round `round`: new names and descriptions, the same in-game ids and tags. */
function roundItems(mods: number, round: number): FakeItem[] {
  const original = rng(7_2026);
  const rewritten = rng(7_2026 + round);
  return Array.from({ length: mods }, (_, index) => {
    const first = modItem(original, index);
    const now = modItem(rewritten, index);
    const modIdLine = first.description.slice(first.description.lastIndexOf("\nMod ID:"));
    const description = `${now.description.slice(0, now.description.lastIndexOf("\nMod ID:"))}${modIdLine}`;
    return fakeItem(first.workshopId, {
      title: `${now.title} ${round}`,
      description,
      tags: first.tags,
      timeUpdated: 1_700_000_000 + round * DAY_SECONDS,
    });
  });
}

/**
 * Seeds both databases with `mods` mods, then runs `rounds` rounds; answers each round's times.
 * Both databases are dropped at the end.
 */
export async function measureCatalogueRewrite(
  adminUrl: string,
  name: string,
  mods: number,
  rounds: number,
  log: (line: string) => void,
): Promise<RewriteRound[]> {
  const steam = await startFakeSteam();
  const workshop = createWorkshopClient({ baseUrl: steam.url, retryBaseMs: 10 });
  const databaseName = (variant: Variant) => `${name}_${variant}`;
  const searchName = databaseName("search");
  const handles: { close(): Promise<void> }[] = [];
  try {
    const searchUrl = await createDatabase(adminUrl, searchName);
    const seeding = await openDatabase({ databaseUrl: searchUrl, poolSize: 2 });
    await migrateToLatest(seeding.db);
    for (const item of roundItems(mods, 0)) steam.items.set(item.workshopId, item);
    const ids = [...steam.items.keys()];
    for (let start = 0; start < ids.length; start += BATCH) {
      const results = await workshop.getItems(ids.slice(start, start + BATCH));
      await upsertWorkshopItems(
        seeding.db,
        results.map((result) => {
          if (!result.ok) throw new Error(`the stand-in did not serve item ${result.workshopId}`);
          return result.item;
        }),
      );
    }
    await sql`vacuum (analyze) mods`.execute(seeding.db);
    await seeding.close();
    const dbs = {} as Record<Variant, Db>;
    // A copy is made of a database nobody is connected to: all copies first.
    for (const variant of VARIANTS) {
      if (variant !== "search") await createDatabase(adminUrl, databaseName(variant), searchName);
    }
    for (const variant of VARIANTS) {
      const handle = await openDatabase({ databaseUrl: databaseUrlOf(adminUrl, databaseName(variant)), poolSize: 2 });
      handles.push(handle);
      dbs[variant] = handle.db;
    }
    await sql`drop index mods_search_text_idx`.execute(dbs.trigger);
    await sql`drop trigger mods_search_text on mods`.execute(dbs.plain);
    await sql`drop index mods_search_text_idx`.execute(dbs.plain);
    log(
      `catalogue rewrite: ${mods} mods in ${searchName}, ${databaseName("trigger")} (no trigram index) and ${databaseName("plain")} (no search trigger or trigram index)`,
    );

    // No modpack holds these mods, so the job notifies nobody and queues no webhook delivery.
    const jobs = {
      send: () => Promise.reject(new Error("the catalogue rewrite queues no job: no modpack holds its mods")),
    };
    const run = async (db: Db) => {
      const started = performance.now();
      const result = await runModUpdate({ db, workshop, jobs });
      const ms = performance.now() - started;
      if (result.changes.length !== mods) throw new Error(`the job changed ${result.changes.length} of ${mods} mods`);
      return ms;
    };
    const measured: RewriteRound[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const item of roundItems(mods, round)) steam.items.set(item.workshopId, item);
      const order = VARIANTS.map((_, index) => VARIANTS[(index + round - 1) % VARIANTS.length]!);
      const times: RewriteRound = { round, search: 0, trigger: 0, plain: 0 };
      for (const variant of order) times[variant] = await run(dbs[variant]);
      measured.push(times);
      log(
        `  round ${round} (${order.join(", ")}): ${VARIANTS.map((variant) => `${variant} ${times[variant].toFixed(0)} ms`).join(", ")}`,
      );
    }
    // The rewritten text is what a search finds (the trigger ran on every row).
    const last = roundItems(1, rounds)[0]!;
    const found = await sql<{ count: number }>`
      select count(*)::int as count from mods
      where workshop_id = ${last.workshopId} and search_text like '%' || search_normalize(${last.title}) || '%'
    `.execute(dbs.search);
    if (found.rows[0]?.count !== 1) throw new Error("the rewritten name is not in the stored search text");
    // The mean as well as the median: the trigram index takes its entries into a pending list that
    // the write which fills it merges into the index, so its cost comes in bursts, in a few rounds.
    for (const [label, of] of [
      ["medians", median],
      ["means", (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length],
    ] as const) {
      const ms = (variant: Variant) => of(measured.map((round) => round[variant]));
      const perRow = (from: Variant, to: Variant) => `${(((ms(from) - ms(to)) / mods) * 1000).toFixed(0)} µs`;
      log(
        `catalogue rewrite of ${mods} mods, ${label} of ${rounds} rounds: ${VARIANTS.map((variant) => `${variant} ${ms(variant).toFixed(0)} ms (${(ms(variant) / mods).toFixed(2)} ms a row)`).join(", ")}`,
      );
      log(
        `  the search text costs ${perRow("search", "plain")} more per written row: the trigger ${perRow("trigger", "plain")}, the trigram index ${perRow("search", "trigger")}`,
      );
    }
    return measured;
  } finally {
    for (const handle of handles) await handle.close();
    await steam.close();
    for (const variant of VARIANTS.toReversed()) await dropDatabase(adminUrl, databaseName(variant));
  }
}
