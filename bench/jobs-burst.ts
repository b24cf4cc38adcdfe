/**
 * `pnpm bench:jobs`: how a burst of server-file requests drains on Postgres, and whether another
 * user waits behind it. Creates its own database (from DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, dropped at the end), seeds two users through the
 * sign-in path and the session store, 20 modpacks of 100 mods for the first and one for the second,
 * starts the real service as a child process (service-server.ts, production configuration), then:
 *
 *  1. the first user requests 40 server files at once (20 modpacks × 41x/42x, all different);
 *  2. once those are accepted, the second user requests one;
 *  3. every export is polled on its download URL until it answers 200.
 *
 * Prints the time from the second user's request to its file being downloadable, and from the first
 * of the 40 requests to the last of them being downloadable. Goals: < 2 s and < 20 s.
 *
 * Then the catalogue rewrite (jobs-rewrite.ts): the mod-update job rewrites the names and
 * descriptions of many mods, timed with and without the stored search text's trigger and index.
 *
 * Environment: DATABASE_URL, BENCH_JOBS_FILES (default 40), BENCH_JOBS_DEADLINE (seconds to wait
 * for everything, default 180), MAX_PENDING_EXPORTS_PER_USER (passed to the service; default here 100,
 * so the per-user bound does not refuse the burst), BENCH_JOBS_PHASES (default `burst,rewrite`),
 * BENCH_JOBS_REWRITE_MODS (default 5000), BENCH_JOBS_REWRITE_ROUNDS (default 6).
 */
import { randomBytes } from "node:crypto";
import { createModpackInput } from "@modpack/contract";
import { upsertSignedInUser } from "@modpack/server/auth/accounts";
import { SESSION_COOKIE } from "@modpack/server/auth/cookies";
import { createSessionStore } from "@modpack/server/auth/sessions";
import { type Db, openDatabase } from "@modpack/server/db/database";
import { migrateToLatest } from "@modpack/server/db/migrate";
import { upsertWorkshopItems } from "@modpack/server/db/mods";
import { modpacksService } from "@modpack/server/services/modpacks";
import pg from "pg";
import { modItem, rng } from "./data.js";
import { createDatabase, dropDatabase } from "./databases.js";
import { measureCatalogueRewrite } from "./jobs-rewrite.js";
import { type Child, forkService } from "./processes.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const env = process.env;
const adminUrl = env.DATABASE_URL || DEFAULT_URL;
const files = Number(env.BENCH_JOBS_FILES ?? 40);
const deadlineSeconds = Number(env.BENCH_JOBS_DEADLINE ?? 180);
const phases = new Set((env.BENCH_JOBS_PHASES ?? "burst,rewrite").split(",").map((phase) => phase.trim()));
const rewriteMods = Number(env.BENCH_JOBS_REWRITE_MODS ?? 5000);
const rewriteRounds = Number(env.BENCH_JOBS_REWRITE_ROUNDS ?? 6);
const MODS_PER_MODPACK = 100;
/** The second user's file is polled often; the burst's 40 less, so polling does not load the server much. */
const POLL_MS = { single: 10, burst: 100 };

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface BenchUser {
  userId: string;
  cookie: string;
}

async function seedUser(db: Db, index: number): Promise<BenchUser> {
  const { userId } = await upsertSignedInUser(
    db,
    "bench",
    {
      id: `jobs-bench-${index}`,
      name: `Burst user ${index}`,
      email: `burst${index}@example.com`,
      emailVerified: true,
      image: null,
    },
    [],
  );
  const session = await createSessionStore(db).createSession(userId);
  return { userId, cookie: `${SESSION_COOKIE}=${session.token}` };
}

/** Modpacks of `owner`, each holding the same 100 catalogue mods. */
async function seedModpacks(db: Db, owner: string, count: number, modIds: string[]): Promise<string[]> {
  const service = modpacksService(db);
  const caller = { userId: owner, role: "user" as const, sessionId: null, tokenId: null, expiresAt: new Date() };
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const modpack = await service.create(
      caller,
      createModpackInput.parse({ name: `Burst pack ${owner.slice(0, 8)} ${index + 1}`, isPublic: false }),
    );
    ids.push(modpack.id);
  }
  const start = Date.UTC(2026, 0, 1);
  await db
    .insertInto("modpackMods")
    .values(
      ids.flatMap((modpackId) =>
        modIds.map((modId, index) => ({ modpackId, modId, addedBy: owner, addedAt: new Date(start + index * 1000) })),
      ),
    )
    .execute();
  return ids;
}

async function requestFile(base: string, user: BenchUser, modpackId: string, version: "41x" | "42x") {
  const response = await fetch(`${base}/modpacks/${modpackId}/server-file`, {
    method: "POST",
    headers: { cookie: user.cookie, "content-type": "application/json" },
    body: JSON.stringify({ version }),
  });
  const body = (await response.json()) as { exportId?: string };
  if (response.status !== 202 || !body.exportId) {
    throw new Error(`POST /modpacks/{id}/server-file answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.exportId;
}

/** Polls a download URL until it answers 200; answers when (performance.now()) it did, or null at the deadline. */
async function downloadableAt(base: string, user: BenchUser, exportId: string, deadline: number, pollMs: number) {
  for (;;) {
    const response = await fetch(`${base}/modpacks/export/${exportId}/download`, { headers: { cookie: user.cookie } });
    await response.arrayBuffer();
    if (response.status === 200) return performance.now();
    if (response.status !== 409) throw new Error(`download of ${exportId} answered ${response.status}`);
    if (performance.now() > deadline) return null;
    await sleep(pollMs);
  }
}

const stamp = new Date()
  .toISOString()
  .replace(/[-:.TZ]/g, "")
  .slice(0, 14);
const databaseName = `mcs_jobs_${stamp}_${randomBytes(3).toString("hex")}`;
let pass = true;
if (phases.has("burst")) pass = await burst();
if (phases.has("rewrite"))
  await measureCatalogueRewrite(adminUrl, `${databaseName}_rw`, rewriteMods, rewriteRounds, log);
log(pass ? "PASS" : "FAIL");
process.exitCode = pass ? 0 : 1;

/** The burst of server files; answers whether both goals were met. */
async function burst(): Promise<boolean> {
  const databaseUrl = await createDatabase(adminUrl, databaseName);
  log(`database: ${databaseName}`);

  let service: Child | undefined;
  try {
    const handle = await openDatabase({ databaseUrl, poolSize: 4 });
    await migrateToLatest(handle.db);
    const random = rng(40_2026);
    const mods = await upsertWorkshopItems(
      handle.db,
      Array.from({ length: MODS_PER_MODPACK }, (_, index) => {
        const item = modItem(random, index);
        return {
          workshopId: item.workshopId,
          title: item.title,
          description: item.description,
          previewUrl: null,
          tags: item.tags,
          timeUpdated: item.timeUpdated,
          platformModIds: item.platformModIds,
          mapFolders: item.mapFolders,
          requiredWorkshopIds: [],
        };
      }),
    );
    const modIds = mods.map((mod) => mod.id);
    const first = await seedUser(handle.db, 1);
    const second = await seedUser(handle.db, 2);
    const firstModpacks = await seedModpacks(handle.db, first.userId, Math.ceil(files / 2), modIds);
    const [secondModpack] = await seedModpacks(handle.db, second.userId, 1, modIds);
    if (!secondModpack) throw new Error("the second user's modpack was not created");
    await handle.close();

    service = await forkService(
      {
        DATABASE_URL: databaseUrl,
        MAX_PENDING_EXPORTS_PER_USER: env.MAX_PENDING_EXPORTS_PER_USER ?? "100",
      },
      [],
    );
    const base = `http://127.0.0.1:${service.port}`;
    log(`service pid ${service.pid} on :${service.port}; ${files} files by one user, then one by another`);

    const burstStarted = performance.now();
    const deadline = burstStarted + deadlineSeconds * 1000;
    const burst = await Promise.all(
      Array.from({ length: files }, (_, index) =>
        requestFile(base, first, firstModpacks[Math.floor(index / 2)] as string, index % 2 === 0 ? "41x" : "42x"),
      ),
    );
    const acceptedMs = performance.now() - burstStarted;
    const secondStarted = performance.now();
    const secondExport = await requestFile(base, second, secondModpack, "41x");
    const [secondDone, ...burstDone] = await Promise.all([
      downloadableAt(base, second, secondExport, deadline, POLL_MS.single),
      ...burst.map((exportId) => downloadableAt(base, first, exportId, deadline, POLL_MS.burst)),
    ]);
    const secondSeconds = secondDone === null ? null : (secondDone - secondStarted) / 1000;
    const finished = burstDone.filter((at): at is number => at !== null);
    const burstSeconds = finished.length === files ? (Math.max(...finished) - burstStarted) / 1000 : null;
    const format = (seconds: number | null) =>
      seconds === null ? `not within ${deadlineSeconds} s` : `${seconds.toFixed(2)} s`;
    log(`${files} requests accepted in ${(acceptedMs / 1000).toFixed(2)} s`);
    log(`second user's file downloadable after ${format(secondSeconds)} (goal < 2 s)`);
    log(
      `all ${files} files downloadable after ${format(burstSeconds)} (goal < 20 s)${burstSeconds === null ? `; ${finished.length} were` : ""}`,
    );
    const sorted = finished.map((at) => (at - burstStarted) / 1000).sort((a, b) => a - b);
    log(`  completion times of the ${files} (s): ${sorted.map((seconds) => seconds.toFixed(1)).join(" ")}`);
    const order = new pg.Client({ connectionString: databaseUrl });
    await order.connect();
    try {
      const { rows } = await order.query<{ before: number; created_before: number }>(
        `select count(*) filter (where e.finished_at < s.finished_at)::int as before,
              count(*) filter (where e.created_at < s.created_at)::int as created_before
       from exports e, exports s where s.id = $1 and e.requested_by <> s.requested_by`,
        [secondExport],
      );
      log(
        `  of the ${files}, ${rows[0]?.created_before} were requested before the second user's file and ${rows[0]?.before} finished before it`,
      );
    } finally {
      await order.end();
    }
    return secondSeconds !== null && secondSeconds < 2 && burstSeconds !== null && burstSeconds < 20;
  } finally {
    await service?.stop();
    await dropDatabase(adminUrl, databaseName);
  }
}
