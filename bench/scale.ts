/**
 * `pnpm bench --scale`: the service's reads at about ten times real size. Creates a fresh Postgres
 * database, runs the service's migrations, seeds the `scale-seed.ts` data set with set-based SQL,
 * starts the real service (child process, production configuration) and, for each read endpoint and
 * its heavy variants, measures p50/p99 of 200 sequential requests (fewer when a request is so slow
 * that 200 would exceed BENCH_SCALE_SEQUENTIAL_SECONDS) and req/s at 16 connections. The statements
 * each endpoint sends to Postgres are recorded in the service and their EXPLAIN (ANALYZE, BUFFERS)
 * written to bench/results/<time>-scale-plans.txt; the table to bench/results/<time>-scale.json.
 *
 * Environment: DATABASE_URL (admin connection), DATABASE_POOL_SIZE (default 10), BENCH_ENDPOINTS
 * (row ids), BENCH_SCALE_LOAD_SECONDS (16-connection run, default 4), BENCH_SCALE_SEQUENTIAL_SECONDS
 * (default 20), BENCH_KEEP_DB=1 (keep the database), BENCH_SCALE_DATABASE (reuse a kept, seeded
 * database instead of seeding a new one).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SESSION_COOKIE } from "@modpack/server/auth/cookies";
import { createSessionStore } from "@modpack/server/auth/sessions";
import { openDatabase } from "@modpack/server/db/database";
import { migrateToLatest } from "@modpack/server/db/migrate";
import { nodeFlags } from "@modpack/server/node-flags";
import { startFakeSteam } from "@modpack/server/test/fixtures/steam-api";
import pg from "pg";
import { createDatabase, databaseUrlOf, dropDatabase } from "./databases.js";
import { percentile, runLoad } from "./load.js";
import { benchDir, type Child, forkService } from "./processes.js";
import { rowId, SCALE, type ScaleSeeded, seedScale } from "./scale-seed.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const env = process.env;
const adminUrl = env.DATABASE_URL || DEFAULT_URL;
const poolSize = Number(env.DATABASE_POOL_SIZE ?? 10);
const loadSeconds = Number(env.BENCH_SCALE_LOAD_SECONDS ?? 4);
const sequentialBudgetMs = 1000 * Number(env.BENCH_SCALE_SEQUENTIAL_SECONDS ?? 20);
const onlyRows = env.BENCH_ENDPOINTS ? new Set(env.BENCH_ENDPOINTS.split(",")) : undefined;
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const resultsDir = path.join(benchDir, "results");
mkdirSync(resultsDir, { recursive: true });
const log = (line: string) => process.stdout.write(`${line}\n`);

interface ScaleRow {
  id: string;
  path: string;
  /** Sends the busy user's session cookie (an admin). */
  signedIn?: boolean;
  /** Takes `pagination.nextCursor` of this row's first answer and asks for the page after it. */
  cursorOf?: string;
  /** A search or filter: held to the tighter goal (p50 ≤ 10 ms, p99 ≤ 50 ms). */
  filter?: boolean;
}

function rowsFor(seeded: ScaleSeeded): ScaleRow[] {
  const big = seeded.bigModpackId;
  // Searches and filters on each list, in the list's default sort and in every other one: "raven"
  // begins the names of 5 % of the mods and 3 % of the modpacks (clustered in name order),
  // "generator" is in a third of the mods' descriptions, "zzqxj" matches nothing.
  const search = (id: string, path: string): ScaleRow => ({ id, path, filter: true });
  const signedIn = (row: ScaleRow): ScaleRow => ({ ...row, signedIn: true });
  return [
    { id: "publicList", path: "/modpacks/public?limit=20" },
    { id: "publicByName", path: "/modpacks/public?limit=20&sortBy=name&sortOrder=asc" },
    search("publicSearch", "/modpacks/public?limit=20&search=raven"),
    search("publicSearchUpdated", "/modpacks/public?limit=20&search=raven&sortBy=updatedAt"),
    search("publicSearchName", "/modpacks/public?limit=20&search=raven&sortBy=name&sortOrder=asc"),
    search("publicSearchNameDesc", "/modpacks/public?limit=20&search=raven&sortBy=name&sortOrder=desc"),
    search("publicSearchOldest", "/modpacks/public?limit=20&search=raven&sortOrder=asc"),
    search("publicSearchWords", "/modpacks/public?limit=20&search=creek%20echo"),
    search("publicSearchNone", "/modpacks/public?limit=20&search=zzqxj"),
    { id: "publicPage500", path: "/modpacks/public?limit=20&page=500" },
    { id: "publicPage1400", path: "/modpacks/public?limit=20&page=1400" },
    { id: "publicCursor", path: "/modpacks/public?limit=20&page=500", cursorOf: "publicPage500" },
    { id: "modpackGet", path: `/modpacks/${big}`, signedIn: true },
    { id: "bigPackMods", path: `/modpacks/${big}/mods?limit=50`, signedIn: true },
    { id: "bigPackByName", path: `/modpacks/${big}/mods?limit=50&sortBy=name`, signedIn: true },
    signedIn(search("bigPackTag", `/modpacks/${big}/mods?limit=50&tags=Weapons`)),
    signedIn(search("bigPackSearch", `/modpacks/${big}/mods?limit=50&search=generator`)),
    signedIn(search("bigPackSearchRaven", `/modpacks/${big}/mods?limit=50&search=raven`)),
    signedIn(search("bigPackSearchName", `/modpacks/${big}/mods?limit=50&search=raven&sortBy=name`)),
    signedIn(search("bigPackSearchUpdated", `/modpacks/${big}/mods?limit=50&search=raven&sortBy=updatedAt`)),
    signedIn(search("bigPackSearchNone", `/modpacks/${big}/mods?limit=50&search=zzqxj`)),
    { id: "bigPackPage50", path: `/modpacks/${big}/mods?limit=50&page=50`, signedIn: true },
    { id: "mods", path: "/mods" },
    search("modsSearchRaven", "/mods?search=raven"),
    search("modsSearchRavenDesc", "/mods?search=raven&sortOrder=desc"),
    search("modsSearchRavenCreated", "/mods?search=raven&sortBy=createdAt"),
    search("modsSearchRavenUpdated", "/mods?search=raven&sortBy=updatedAt&sortOrder=desc"),
    search("modsSearchWords", "/mods?search=generators%20raven%20creek"),
    search("modsSearchNone", "/mods?search=zzqxj"),
    search("modsSearchGenerator", "/mods?search=generator"),
    search("modsSearchGeneratorUpdated", "/mods?search=generator&sortBy=updatedAt&sortOrder=desc"),
    search("modsSearchWorkshopId", "/mods?search=2000000042"),
    search("modsTag", "/mods?tags=Weapons"),
    search("modsTagCreated", "/mods?tags=Weapons&sortBy=createdAt"),
    search("modsTagUpdated", "/mods?tags=Weapons&sortBy=updatedAt&sortOrder=desc"),
    search("modsRareTag", "/mods?tags=Rare%2017"),
    { id: "modsByUpdated", path: "/mods?sortBy=updatedAt&sortOrder=desc" },
    { id: "modsPage500", path: "/mods?page=500" },
    { id: "modsPage5000", path: "/mods?page=5000" },
    { id: "modsCursor", path: "/mods?page=500", cursorOf: "modsPage500" },
    { id: "modsInPack", path: `/mods?modpackId=${big}`, signedIn: true },
    signedIn(search("modsInPackSearch", `/mods?modpackId=${big}&search=raven`)),
    signedIn(search("modsInPackSearchCreated", `/mods?modpackId=${big}&search=raven&sortBy=createdAt`)),
    { id: "modGet", path: `/mods/${seeded.modId}` },
    { id: "tags", path: "/mods/tags" },
    { id: "mine", path: "/modpacks/my", signedIn: true },
    signedIn(search("mineSearch", "/modpacks/my?search=raven")),
    signedIn(search("mineSearchUpdated", "/modpacks/my?search=raven&sortBy=updatedAt")),
    signedIn(search("mineSearchName", "/modpacks/my?search=raven&sortBy=name&sortOrder=asc")),
    { id: "minePage250", path: "/modpacks/my?page=250", signedIn: true },
    { id: "notifications", path: "/notifications", signedIn: true },
    { id: "notificationsUnread", path: "/notifications?unreadOnly=true", signedIn: true },
    { id: "adminStats", path: "/admin/stats", signedIn: true },
    { id: "adminUsers", path: "/admin/users", signedIn: true },
    { id: "adminUsersSearch", path: "/admin/users?search=kate", signedIn: true },
  ];
}

/** Searches and filters: p50 ≤ 10 ms and p99 ≤ 50 ms; the other reads p50 ≤ 20 ms and p99 ≤ 100 ms. */
const passes = (row: Measured) => (row.filter ? row.p50 <= 10 && row.p99 <= 50 : row.p50 <= 20 && row.p99 <= 100);

interface Measured {
  id: string;
  path: string;
  status: number;
  bytes: number;
  sequential: number;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
  statements: number;
  filter: boolean;
}

const databaseName = env.BENCH_SCALE_DATABASE ?? `mcs_scale_${stamp.slice(0, 19).replace(/-/g, "").replace("T", "_")}`;
const databaseUrl = databaseUrlOf(adminUrl, databaseName);
const steam = await startFakeSteam();
let service: Child | undefined;

try {
  let seeded: ScaleSeeded;
  if (env.BENCH_SCALE_DATABASE) {
    seeded = { busyUserId: rowId(1, 1), bigModpackId: rowId(2, 1), modId: rowId(3, 1), counts: {}, timings: {} };
    log(`reusing database ${databaseName}`);
  } else {
    await createDatabase(adminUrl, databaseName);
    log(`database: ${databaseName}`);
    const started = performance.now();
    const handle = await openDatabase({ databaseUrl, poolSize: 2 });
    await migrateToLatest(handle.db);
    await handle.close();
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      seeded = await seedScale(client, databaseUrl);
    } finally {
      await client.end();
    }
    log(
      `seeded in ${((performance.now() - started) / 1000).toFixed(1)} s (migrations included): ${JSON.stringify(seeded.counts)}; ms per phase ${JSON.stringify(seeded.timings)}`,
    );
  }
  // Sessions expire after minutes without use and a slow row can take longer: each signed-in row
  // gets a fresh session.
  const sessionsHandle = await openDatabase({ databaseUrl, poolSize: 1 });
  const sessions = createSessionStore(sessionsHandle.db);
  const freshCookie = async () => `${SESSION_COOKIE}=${(await sessions.createSession(seeded.busyUserId)).token}`;

  service = await forkService(
    {
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(poolSize),
      WORKSHOP_API_URL: steam.url,
      BENCH_RECORD_SQL: "1",
      // One client sends every request: the rate limits would answer most rows with 429.
      RATE_LIMIT_PER_MINUTE: env.RATE_LIMIT_PER_MINUTE ?? "1000000000",
    },
    [...nodeFlags],
  );
  const base = `http://127.0.0.1:${service.port}`;
  const explainer = new pg.Client({ connectionString: databaseUrl });
  await explainer.connect();
  await explainer.query("set jit = off");
  const plans: string[] = [];
  const results: Measured[] = [];
  const nextCursors = new Map<string, string>();
  const child = service;

  for (const row of rowsFor(seeded)) {
    if (onlyRows && !onlyRows.has(row.id) && !(row.cursorOf && onlyRows.has(row.cursorOf))) continue;
    let url = `${base}${row.path}`;
    if (row.cursorOf) {
      const cursor = nextCursors.get(row.cursorOf);
      if (!cursor) {
        log(`  ${row.id}: no cursor from ${row.cursorOf}, skipped`);
        continue;
      }
      url = `${base}${row.path.replace(/([?&])page=\d+/, `$1cursor=${encodeURIComponent(cursor)}`)}`;
    }
    const headers: Record<string, string> = row.signedIn ? { cookie: await freshCookie() } : {};
    await child.ask({ type: "statements" }, "statements");
    const first = await fetch(url, { headers });
    const text = await first.text();
    const { statements } = await child.ask<{
      type: string;
      statements: { sql: string; parameters: unknown[] }[];
    }>({ type: "statements" }, "statements");
    if (first.status === 200) {
      try {
        const cursor = (JSON.parse(text) as { pagination?: { nextCursor?: string | null } }).pagination?.nextCursor;
        if (cursor) nextCursors.set(row.id, cursor);
      } catch {
        // not JSON
      }
    }
    const reads = statements.filter((statement) => /^\s*(select|with)/i.test(statement.sql));
    for (const statement of reads) {
      try {
        const plan = await explainer.query<{ "QUERY PLAN": string }>(
          `explain (analyze, buffers) ${statement.sql}`,
          statement.parameters,
        );
        plans.push(
          `== ${row.id} (${row.path}) ==\n${statement.sql}\n-- parameters: ${JSON.stringify(statement.parameters)}\n${plan.rows.map((line) => line["QUERY PLAN"]).join("\n")}\n`,
        );
      } catch (error) {
        plans.push(`== ${row.id} ==\n${statement.sql}\n-- EXPLAIN failed: ${String(error)}\n`);
      }
    }

    // Sequential: up to 200 requests within the time budget.
    const latencies: number[] = [];
    const sequentialStarted = performance.now();
    while (latencies.length < 200 && performance.now() - sequentialStarted < sequentialBudgetMs) {
      const started = performance.now();
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const loaded = await runLoad({ url, method: "GET", headers, connections: 16, durationSeconds: loadSeconds });
    // Let requests the load left running in the service finish before the next row.
    await fetch(`${base}/health`).catch(() => undefined);
    const measured: Measured = {
      id: row.id,
      path: row.cursorOf ? `${row.path.replace(/page=\d+/, "cursor=…")}` : row.path,
      status: first.status,
      bytes: text.length,
      sequential: latencies.length,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      rps: loaded.rps,
      errors: loaded.errors,
      statements: statements.length,
      filter: row.filter === true,
    };
    results.push(measured);
    log(
      `  ${row.id.padEnd(20)} ${first.status} ${String(text.length).padStart(7)} B  p50 ${measured.p50.toFixed(1).padStart(7)} ms  p99 ${measured.p99.toFixed(1).padStart(7)} ms (${latencies.length} seq)  ${measured.rps.toFixed(0).padStart(5)} req/s @16 (${loaded.errors} errors)  ${reads.length}/${statements.length} stmt`,
    );
  }
  await explainer.end();
  await sessionsHandle.close();
  writeFileSync(path.join(resultsDir, `${stamp}-scale-plans.txt`), plans.join("\n"));

  const table = [
    ["row", "request", "status", "p50 ms", "p99 ms", "req/s @16", "goal"],
    ...results.map((row) => [
      row.id,
      row.path.replace(seeded.bigModpackId, "{big}").replace(seeded.modId, "{id}"),
      String(row.status),
      row.p50.toFixed(1),
      row.p99.toFixed(1),
      row.rps.toFixed(0),
      row.status >= 500 ? "FAIL" : passes(row) ? "PASS" : "FAIL",
    ]),
  ];
  log("");
  log(`| ${table[0]?.join(" | ")} |`);
  log(`|${table[0]?.map(() => "---").join("|")}|`);
  for (const line of table.slice(1)) log(`| ${line.join(" | ")} |`);
  writeFileSync(
    path.join(resultsDir, `${stamp}-scale.json`),
    JSON.stringify(
      {
        machine: { cpus: os.cpus().length, node: process.version, loadAverage: os.loadavg() },
        sizes: SCALE,
        seed: { counts: seeded.counts, timings: seeded.timings },
        rows: results,
      },
      null,
      2,
    ),
  );
  log(`results: bench/results/${stamp}-scale.json, plans: bench/results/${stamp}-scale-plans.txt`);
} finally {
  await service?.stop().catch(() => {});
  await steam.close().catch(() => {});
  if (env.BENCH_KEEP_DB !== "1" && !env.BENCH_SCALE_DATABASE) {
    await dropDatabase(adminUrl, databaseName).catch(() => {});
  } else {
    log(`kept database ${databaseName}`);
  }
}
