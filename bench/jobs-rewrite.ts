/**
 * The catalogue-rewrite phase of `pnpm bench:jobs`: what keeping the stored search text costs a
 * write. The mod-update job (`runModUpdate`, the daily job's own function, run in this process)
 * rereads `mods` catalogue mods from the Steam stand-in, which serves each round a new name and a
 * new description for every one of them, so the job rewrites every mod's name and description.
 *
 * Two databases hold the same catalogue: `<name>_search` as migrated, and `<name>_plain`, a copy of
 * it without the search text's trigger and trigram index. Each round runs the job on both, in
 * alternating order, so background load falls on both alike; the difference of their times over
 * the rows written is what the trigger and the index cost per written row.
 */
import { type Db, openDatabase } from "@modpack/server/db/database";
import { migrateToLatest } from "@modpack/server/db/migrate";
import { runModUpdate } from "@modpack/server/jobs/mod-update";
import { upsertWorkshopItems } from "@modpack/server/services/mods";
import { createWorkshopClient } from "@modpack/server/workshop/client";
import { type FakeItem, fakeItem, startFakeSteam } from "@modpack/server/test/fixtures/steam-api";
import { sql } from "kysely";
import { modItem, rng } from "./data.js";
import { createDatabase, databaseUrlOf, dropDatabase } from "./databases.js";

/** The job asks the workshop for this many items at a time; the seed writes them the same way. */
const BATCH = 100;
const DAY_SECONDS = 86_400;

export interface RewriteRound {
  round: number;
  /** Milliseconds of the job's run on each database. */
  searchMs: number;
  plainMs: number;
}

const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

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
  const searchName = `${name}_search`;
  const plainName = `${name}_plain`;
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
    await createDatabase(adminUrl, plainName, searchName);
    const search = await openDatabase({ databaseUrl: searchUrl, poolSize: 2 });
    handles.push(search);
    const plain = await openDatabase({ databaseUrl: databaseUrlOf(adminUrl, plainName), poolSize: 2 });
    handles.push(plain);
    await sql`drop trigger mods_search_text on mods`.execute(plain.db);
    await sql`drop index mods_search_text_idx`.execute(plain.db);
    log(`catalogue rewrite: ${mods} mods in ${searchName} and in ${plainName} (no search trigger or trigram index)`);

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
      const order = round % 2 === 1 ? (["search", "plain"] as const) : (["plain", "search"] as const);
      const times = { search: 0, plain: 0 };
      for (const which of order) times[which] = await run(which === "search" ? search.db : plain.db);
      measured.push({ round, searchMs: times.search, plainMs: times.plain });
      log(
        `  round ${round} (${order.join(" then ")}): with the search text ${times.search.toFixed(0)} ms, without ${times.plain.toFixed(0)} ms`,
      );
    }
    // The rewritten text is what a search finds (the trigger ran on every row).
    const last = roundItems(1, rounds)[0]!;
    const found = await sql<{ count: number }>`
      select count(*)::int as count from mods
      where workshop_id = ${last.workshopId} and search_text like '%' || search_normalize(${last.title}) || '%'
    `.execute(search.db);
    if (found.rows[0]?.count !== 1) throw new Error("the rewritten name is not in the stored search text");
    const searchMs = median(measured.map((round) => round.searchMs));
    const plainMs = median(measured.map((round) => round.plainMs));
    log(
      `catalogue rewrite of ${mods} mods, median of ${rounds} rounds: ${searchMs.toFixed(0)} ms with the search text, ${plainMs.toFixed(0)} ms without; ${(((searchMs - plainMs) / mods) * 1000).toFixed(0)} µs more per written row (${(searchMs / mods).toFixed(2)} vs ${(plainMs / mods).toFixed(2)} ms per row)`,
    );
    return measured;
  } finally {
    for (const handle of handles) await handle.close();
    await steam.close();
    await dropDatabase(adminUrl, plainName);
    await dropDatabase(adminUrl, searchName);
  }
}
