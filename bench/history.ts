/**
 * `pnpm bench --history`: a modpack's history at size. A 1,000-mod modpack gets 1,000 revisions, each
 * moving one mod (through `PUT /modpacks/{id}/export-configuration` on the real service); then the
 * revision list, the comparison of the first with the last, and a server file pinned to a middle
 * revision are read 200 times each, one after another, and the rows stored per revision counted.
 * Last, a catalogue change of one mod held by 1,000 modpacks (the workshop renaming its id), timed
 * through `upsertWorkshopItems`, which records a revision in each of them. And a start report: a
 * 16 MiB server log (a real clean start's lines, repeated) posted five times to
 * `POST /modpacks/{id}/server-starts`, timed, with the service's RSS before and at its highest.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { upsertSignedInUser } from "@modpack/server/auth/accounts";
import { SESSION_COOKIE } from "@modpack/server/auth/cookies";
import { createSessionStore } from "@modpack/server/auth/sessions";
import { openDatabase } from "@modpack/server/db/database";
import { migrateToLatest } from "@modpack/server/db/migrate";
import { recordPendingInitialRevisions } from "@modpack/server/db/modpack-revisions";
import { upsertWorkshopItems } from "@modpack/server/db/mods";
import { sql } from "kysely";
import { modItem, rng } from "./data.js";
import { createDatabase, databaseUrlOf, dropDatabase } from "./databases.js";
import { percentile } from "./load.js";
import { benchDir, forkService, memoryOf, sampleRss } from "./processes.js";

const adminUrl = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const MODS = Number(process.env.BENCH_HISTORY_MODS ?? 1_000);
const REVISIONS = Number(process.env.BENCH_HISTORY_REVISIONS ?? 1_000);
const HOLDERS = Number(process.env.BENCH_HISTORY_HOLDERS ?? 1_000);
const READS = 200;

const log = (line: string) => process.stdout.write(`${line}\n`);
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const name = `mcs_bench_history_${Date.now()}`;
process.stdout.write(`database ${name} on ${adminUrl.replace(/\/\/[^@]*@/, "//")}\n`);
await createDatabase(adminUrl, name);
const databaseUrl = databaseUrlOf(adminUrl, name);
let service: Awaited<ReturnType<typeof forkService>> | undefined;
try {
  const handle = await openDatabase({ databaseUrl, poolSize: 4 });
  await migrateToLatest(handle.db);
  const db = handle.db;
  const random = rng(20_261_127);
  const { userId } = await upsertSignedInUser(
    db,
    "bench",
    { id: "history", name: "History", email: "history@example.com", emailVerified: true, image: null },
    [],
  );
  const session = await createSessionStore(db).createSession(userId);
  const items = Array.from({ length: MODS + 1 }, (_, index) => ({
    ...modItem(random, index),
    previewUrl: null,
    requiredWorkshopIds: [],
  }));
  const rows = await upsertWorkshopItems(db, items);
  const pack = await db
    .insertInto("modpacks")
    .values({ name: "History at size", ownerId: userId, metadata: "{}" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const packMods = rows.slice(0, MODS);
  await db
    .insertInto("modpackMods")
    .values(
      packMods.map((row, index) => ({
        modpackId: pack.id,
        modId: row.id,
        addedBy: userId,
        addedAt: new Date(Date.UTC(2026, 0, 1) + index),
      })),
    )
    .execute();
  await db.insertInto("pendingInitialRevisions").values({ modpackId: pack.id }).execute();
  await recordPendingInitialRevisions(db);

  service = await forkService(
    { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "4", RATE_LIMIT_PER_MINUTE: "1000000000" },
    [],
  );
  const base = `http://127.0.0.1:${service.port}`;
  const headers = { cookie: `${SESSION_COOKIE}=${session.token}` };

  // 1,000 revisions, each moving one mod from the front to the back of the load order.
  let order = packMods.map((row) => row.id);
  const writes: number[] = [];
  for (let index = 1; index < REVISIONS; index++) {
    order = [...order.slice(1), order[0]!];
    const started = performance.now();
    const response = await fetch(`${base}/modpacks/${pack.id}/export-configuration`, {
      method: "PUT",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ modsOrder: order, modConfig: {} }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`PUT export-configuration answered ${response.status}`);
    writes.push(performance.now() - started);
  }
  const stored = await db
    .selectFrom("modpackRevisionMods")
    .select((eb) => eb.fn.countAll<string>().as("rows"))
    .where("modpackId", "=", pack.id)
    .executeTakeFirstOrThrow();
  const revisions = (
    await db.selectFrom("modpacks").select("revision").where("id", "=", pack.id).executeTakeFirstOrThrow()
  ).revision;
  await sql`vacuum analyze`.execute(db);

  const timed = async (url: string) => {
    const times: number[] = [];
    let bytes = 0;
    for (let index = 0; index < READS; index++) {
      const started = performance.now();
      const response = await fetch(`${base}${url}`, { headers });
      const body = await response.text();
      times.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
      bytes = Buffer.byteLength(body);
    }
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), bytes };
  };
  const reads = {
    list: await timed(`/modpacks/${pack.id}/revisions?limit=20`),
    compare: await timed(`/modpacks/${pack.id}/revisions/compare?from=1&to=${revisions}`),
    pinned: await timed(`/modpacks/${pack.id}/server-file?version=42x&revision=${Math.ceil(revisions / 2)}`),
    revision: await timed(`/modpacks/${pack.id}/revisions/${Math.ceil(revisions / 2)}`),
  };

  // A 16 MiB start log, five times, with the service's memory sampled throughout.
  const clean = readFileSync(
    new URL("../apps/server/test/fixtures/server-logs/b41-clean-start-jrx-sjg-zehioidserver.log", import.meta.url),
    "utf8",
  ).replaceAll("SERVER STARTED", "SERVER STARTING");
  const up = "LOG  : Network     , 1685206043049> 162.885.943> *** SERVER STARTED ****\n";
  const body = Buffer.from(clean.repeat(Math.floor((16 * 1024 * 1024 - up.length) / Buffer.byteLength(clean))) + up);
  const rssBefore = memoryOf(service.pid)?.rssMb ?? 0;
  const sampler = sampleRss(service.pid, 50);
  const posts: number[] = [];
  for (let index = 0; index < 5; index++) {
    const started = performance.now();
    const response = await fetch(`${base}/modpacks/${pack.id}/server-starts?version=41x`, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body,
    });
    const answer = (await response.json()) as { outcome?: string };
    posts.push(performance.now() - started);
    if (response.status !== 201 || answer.outcome !== "started") {
      throw new Error(`POST server-starts answered ${response.status} ${JSON.stringify(answer).slice(0, 200)}`);
    }
  }
  const rssPeak = sampler.stop();
  posts.sort((a, b) => a - b);
  const startReport = {
    bytes: body.length,
    p50Ms: percentile(posts, 0.5),
    maxMs: posts.at(-1) ?? 0,
    rssBeforeMb: rssBefore,
    rssPeakMb: rssPeak,
  };

  // One mod held by 1,000 modpacks (five mods each), then renamed on the workshop.
  const shared = rows[MODS]!;
  const holders = await db
    .insertInto("modpacks")
    .values(
      Array.from({ length: HOLDERS }, (_, index) => ({ name: `Holder ${index}`, ownerId: userId, metadata: "{}" })),
    )
    .returning("id")
    .execute();
  await db
    .insertInto("modpackMods")
    .values(
      holders.flatMap((holder, index) =>
        [shared, ...rows.slice((index * 4) % (MODS - 4), ((index * 4) % (MODS - 4)) + 4)].map((row) => ({
          modpackId: holder.id,
          modId: row.id,
          addedBy: userId,
          addedAt: new Date(),
        })),
      ),
    )
    .execute();
  await db
    .insertInto("pendingInitialRevisions")
    .values(holders.map((holder) => ({ modpackId: holder.id })))
    .execute();
  await recordPendingInitialRevisions(db);
  const renamed = { ...items[MODS]!, platformModIds: ["RenamedOnTheWorkshop"] };
  const started = performance.now();
  await upsertWorkshopItems(db, [renamed]);
  const catalogueMs = performance.now() - started;
  const workshopRevisions = await db
    .selectFrom("modpackRevisions")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .where("reason", "=", "workshop")
    .executeTakeFirstOrThrow();
  await handle.close();

  writes.sort((a, b) => a - b);
  const result = {
    mods: MODS,
    revisions,
    rowsStored: Number(stored.rows),
    rowsPerRevision: Number(stored.rows) / revisions,
    writeP50Ms: percentile(writes, 0.5),
    writeP95Ms: percentile(writes, 0.95),
    reads,
    catalogueChange: { holders: HOLDERS, ms: catalogueMs, workshopRevisions: Number(workshopRevisions.count) },
    startReport,
  };
  log(`a ${MODS}-mod modpack with ${revisions} revisions, each after the first moving one mod:`);
  log(
    `  rows stored: ${result.rowsStored} (${result.rowsPerRevision.toFixed(2)} per revision); a move's PUT p50 ${result.writeP50Ms.toFixed(1)} ms, p95 ${result.writeP95Ms.toFixed(1)} ms`,
  );
  for (const [read, figures] of Object.entries(reads)) {
    log(
      `  ${read.padEnd(9)} p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms (${figures.bytes} bytes)`,
    );
  }
  log(
    `a catalogue change of a mod held by ${HOLDERS} modpacks: ${catalogueMs.toFixed(0)} ms, ${result.catalogueChange.workshopRevisions} workshop revisions`,
  );
  log(
    `a ${(startReport.bytes / 1024 / 1024).toFixed(0)} MiB start log, 5 posts: p50 ${startReport.p50Ms.toFixed(0)} ms, max ${startReport.maxMs.toFixed(0)} ms; service RSS ${startReport.rssBeforeMb.toFixed(0)} MB before, ${startReport.rssPeakMb.toFixed(0)} MB at most`,
  );
  const targets = [
    ["16 MiB start log answered in <= 1 s (max)", startReport.maxMs <= 1000],
    ["service RSS grows by less than 64 MB over the start logs", startReport.rssPeakMb - startReport.rssBeforeMb < 64],
    ["revision list p50 <= 20 ms", reads.list.p50 <= 20],
    ["compare first with last p50 <= 20 ms", reads.compare.p50 <= 20],
    ["pinned server file p50 <= 20 ms", reads.pinned.p50 <= 20],
    ["rows per revision <= 3", result.rowsPerRevision <= 3],
  ] as const;
  for (const [target, ok] of targets) log(`${ok ? "PASS" : "FAIL"} ${target}`);
  writeFileSync(path.join(benchDir, "results", `${stamp}-history.json`), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await service?.stop();
  await dropDatabase(adminUrl, name);
}
