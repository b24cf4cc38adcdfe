/**
 * Faults: Postgres connections killed under traffic, the Steam Web API failing in every way it
 * can during an import, and the server process killed with SIGKILL in the middle of an import.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.js";
import { type FailureMode, type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import {
  createModpack,
  type ImportStatus,
  importNotifications,
  startImport,
  waitForImport,
} from "./support/modpacks.js";
import { exitOf, startServiceProcess } from "./support/process.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { workshopUrl } from "./support/workshop.js";

const hasPostgres = Boolean(process.env.DATABASE_URL);
const UNAVAILABLE_BODY = {
  error: { message: "Service temporarily unavailable, try again shortly", code: "SERVICE_UNAVAILABLE" },
};

let steam: FakeSteam;

beforeAll(async () => {
  steam = await startFakeSteam();
});
afterAll(async () => {
  await steam.close();
});
afterEach(() => steam.reset());

// ---------------------------------------------------------------------------------------------

describe("Postgres connections killed mid-traffic", () => {
  if (!hasPostgres) {
    process.stdout.write(
      "faults: skipping 'Postgres connections killed mid-traffic': it needs DATABASE_URL (the embedded database has no server connections to kill)\n",
    );
  }

  it.skipIf(!hasPostgres)(
    "answers in-flight requests with 200 or a clean 503, recovers without a restart, and pg-boss resumes",
    async () => {
      let slowDb: TestService["runtime"]["database"]["db"] | undefined;
      const service = await startTestService({
        env: { WORKSHOP_API_URL: steam.url, WORKSHOP_TIMEOUT_MS: "1000", WORKSHOP_MAX_RETRIES: "1" },
        // Half the public-list requests sit in a 300 ms query, so a kill always lands on queries in flight.
        services: (services) => ({
          ...services,
          modpacks: {
            ...services.modpacks,
            async listPublic(input) {
              if (slowDb && input.search === "slow") await sql`select pg_sleep(0.3)`.execute(slowDb);
              return services.modpacks.listPublic(input);
            },
          },
        }),
      });
      slowDb = service.runtime.database.db;
      const admin = new pg.Client({ connectionString: service.database.url });
      try {
        await admin.connect();
        await service.app.listen({ port: 0, host: "127.0.0.1" });
        const address = service.app.server.address();
        const base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
        const users = await Promise.all([0, 1, 2, 3].map((index) => signIn(service, { name: `Reader ${index}` })));
        const modpacks = await Promise.all(
          users.map((user, index) => createModpack(service, user, { name: `Killed ${index}`, isPublic: true })),
        );

        const reads = (index: number): { path: string; headers: Record<string, string> } => {
          const user = users[index % users.length]!;
          const auth = { authorization: `Bearer ${user.token}` };
          switch (index % 6) {
            case 0:
              return { path: "/modpacks/public", headers: {} };
            case 1:
              return { path: "/modpacks/public?search=slow", headers: {} };
            case 2:
              return { path: "/modpacks/my", headers: auth };
            case 3:
              return { path: `/modpacks/${modpacks[index % modpacks.length]}`, headers: auth };
            case 4:
              return { path: "/notifications", headers: auth };
            default:
              return { path: `/modpacks/${modpacks[index % modpacks.length]}/mods`, headers: auth };
          }
        };
        const outcomes: Array<{ path: string; status?: number; body?: unknown; type?: string; error?: string }> = [];
        const fire = async (index: number) => {
          const { path: target, headers } = reads(index);
          try {
            const response = await fetch(`${base}${target}`, { headers });
            const text = await response.text();
            outcomes.push({
              path: target,
              status: response.status,
              type: response.headers.get("content-type") ?? "",
              body: response.status >= 400 ? JSON.parse(text) : undefined,
            });
          } catch (error) {
            outcomes.push({ path: target, error: String((error as Error).cause ?? error) });
          }
        };

        let killed = 0;
        for (let wave = 0; wave < 3; wave++) {
          const burst = Promise.all(Array.from({ length: 50 }, (_, index) => fire(index + wave)));
          await sleep(100);
          const result = await admin.query(
            "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
          );
          killed += result.rowCount ?? 0;
          await burst;
        }

        const statuses = new Map<string, number>();
        for (const outcome of outcomes) {
          const key = outcome.error ? "socket error" : String(outcome.status);
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
        }
        process.stdout.write(
          `connections killed: ${killed} backends over 3 waves; ${outcomes.length} requests: ${JSON.stringify(Object.fromEntries(statuses))}\n`,
        );
        expect(killed).toBeGreaterThan(0);
        expect(outcomes).toHaveLength(150);
        for (const outcome of outcomes) {
          expect(outcome.error, `${outcome.path}: ${outcome.error}`).toBeUndefined();
          if (outcome.status === 200) continue;
          expect(outcome.status, `${outcome.path}: ${JSON.stringify(outcome.body)}`).toBe(503);
          expect(outcome.type).toMatch(/^application\/json/);
          expect(outcome.body).toEqual(UNAVAILABLE_BODY);
        }
        // The slow queries were in flight when their connections were killed: some answers were 503.
        expect(statuses.get("503") ?? 0).toBeGreaterThan(0);

        // The same server (no restart) answers again once the pool has dropped its dead connections.
        for (let index = 0; index < 6; index++) {
          const { path: target, headers } = reads(index);
          let status = 0;
          for (let attempt = 0; attempt < 10 && status !== 200; attempt++) {
            if (attempt > 0) await sleep(200);
            status = (await fetch(`${base}${target}`, { headers })).status;
          }
          expect(status, target).toBe(200);
        }

        // pg-boss lost its connections too; a job sent now is still worked.
        for (const id of ["301", "302"]) steam.items.set(id, fakeItem(id));
        steam.collections.set("3000", ["301", "302"]);
        const owner = users[0]!;
        const importId = await startImport(service, owner, modpacks[0]!, "3000");
        const status = await waitForImport(service, owner, modpacks[0]!, 60_000);
        expect(status).toMatchObject({ importId, status: "completed", modsImported: 2, modsFailed: 0 });
      } finally {
        await admin.end().catch(() => {});
        await service.stop();
      }
    },
    120_000,
  );
});

// ---------------------------------------------------------------------------------------------

/**
 * Sits in front of the fake Steam API and fails only the calls of one endpoint, as planned, so a
 * test can let the collection read through and fail the detail batches (the fake's own `failNext`
 * fails whatever comes next).
 */
async function startSteamProxy(target: string) {
  const plan: Array<{ endpoint: string; mode: FailureMode; retryAfter: number | undefined; itemId?: string }> = [];
  const calls: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      calls.push(new URL(request.url ?? "/", "http://proxy").pathname.replace(/^\/|\/$/g, ""));
      const body = Buffer.concat(chunks).toString();
      const index = plan.findIndex(
        (entry) =>
          request.url?.startsWith(`/${entry.endpoint}/`) &&
          (entry.itemId === undefined || new RegExp(`=${entry.itemId}(&|$)`).test(body)),
      );
      const failure = index >= 0 ? plan.splice(index, 1)[0] : undefined;
      if (failure) {
        if (failure.mode === "hang") return;
        if (failure.mode === "429" && failure.retryAfter !== undefined) {
          response.setHeader("retry-after", String(failure.retryAfter));
        }
        const status = failure.mode === "garbage" ? 200 : Number(failure.mode);
        response.writeHead(status, { "content-type": "text/html" });
        response.end("<html><body>Steam is having a bad day</body></html>");
        return;
      }
      fetch(`${target}${request.url}`, {
        method: request.method ?? "GET",
        headers: { "content-type": String(request.headers["content-type"] ?? "text/plain") },
        ...(request.method === "GET" ? {} : { body: Buffer.concat(chunks) }),
      })
        .then(async (upstream) => {
          const retryAfter = upstream.headers.get("retry-after");
          response.writeHead(upstream.status, {
            "content-type": upstream.headers.get("content-type") ?? "text/plain",
            ...(retryAfter === null ? {} : { "retry-after": retryAfter }),
          });
          response.end(Buffer.from(await upstream.arrayBuffer()));
        })
        .catch(() => response.destroy());
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** The endpoint of every call, failed ones included. */
    calls,
    /** Fails the next `count` calls of `endpoint` (only those asking for `itemId`, when given). */
    fail(endpoint: string, count: number, mode: FailureMode, retryAfter?: number, itemId?: string) {
      for (let index = 0; index < count; index++) {
        plan.push({ endpoint, mode, retryAfter, ...(itemId === undefined ? {} : { itemId }) });
      }
    },
    reset() {
      plan.length = 0;
      calls.length = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

describe("the Steam Web API failing during an import", () => {
  const MAX_RETRIES = 2;
  const ATTEMPTS = MAX_RETRIES + 1;
  const COLLECTIONS = "ISteamRemoteStorage/GetCollectionDetails/v1";
  const DETAILS = "ISteamRemoteStorage/GetPublishedFileDetails/v1";
  let service: TestService;
  let owner: SignedIn;
  let proxy: Awaited<ReturnType<typeof startSteamProxy>>;

  beforeAll(async () => {
    proxy = await startSteamProxy(steam.url);
    service = await startTestService({
      env: {
        WORKSHOP_API_URL: proxy.url,
        // Long enough that an answered call never times out on a loaded machine; a hang waits it out.
        WORKSHOP_TIMEOUT_MS: "2000",
        WORKSHOP_MAX_RETRIES: String(MAX_RETRIES),
      },
    });
    owner = await signIn(service, { name: "Steam fault importer" });
  });
  afterAll(async () => {
    await service.stop();
    await proxy.close();
  });
  afterEach(() => proxy.reset());

  const seedCollection = (collectionId: string, count: number, first: number) => {
    const ids = Array.from({ length: count }, (_, index) => String(first + index));
    for (const id of ids) steam.items.set(id, fakeItem(id));
    steam.collections.set(collectionId, ids);
    return ids;
  };

  it.each([
    ["500 on every attempt", "500" as const, undefined],
    ["429 with Retry-After on every attempt", "429" as const, 1],
    ["no answer (hanging) on every attempt", "hang" as const, undefined],
    ["garbage (HTML with 200) on every attempt", "garbage" as const, undefined],
  ])("fails the import clearly when the collection read gets %s", async (_name, mode, retryAfter) => {
    seedCollection("4100", 3, 41_000);
    const modpackId = await createModpack(service, owner, { name: "Fault target" });
    steam.failNext(ATTEMPTS, mode, retryAfter);
    const startedAt = Date.now();
    const importId = await startImport(service, owner, modpackId, "4100");
    const status = await waitForImport(service, owner, modpackId);
    const elapsed = Date.now() - startedAt;

    expect(status).toMatchObject({
      importId,
      status: "failed",
      modsImported: 0,
      error: "The Steam Workshop could not be reached; try again later.",
    });
    // Bounded: the first attempt and MAX_RETRIES retries, then no more calls.
    expect(steam.calls.filter((call) => call.endpoint === COLLECTIONS)).toHaveLength(ATTEMPTS);
    expect(steam.calls.filter((call) => call.endpoint === DETAILS)).toHaveLength(0);
    if (retryAfter !== undefined) expect(elapsed).toBeGreaterThanOrEqual(MAX_RETRIES * retryAfter * 1000);
    expect(await importNotifications(service, owner, importId)).toEqual([
      expect.objectContaining({ title: "Import failed", type: "error", content: expect.stringContaining("4100") }),
      expect.objectContaining({ title: "Import started", type: "info" }),
    ]);
    process.stdout.write(`steam ${mode} on every attempt: import failed after ${elapsed} ms\n`);
  });

  it.each([
    ["500", "500" as const],
    ["hanging", "hang" as const],
    ["garbage", "garbage" as const],
    ["429", "429" as const],
  ])("counts a batch the API keeps answering %s as failed `unavailable` and imports the rest", async (_name, mode) => {
    const ids = seedCollection("4200", 150, 42_000);
    const modpackId = await createModpack(service, owner, { name: "Fault target" });
    // The collection is answered; the first details batch (ids 0-99) fails every attempt.
    proxy.fail(DETAILS, ATTEMPTS, mode, mode === "429" ? 0 : undefined, ids[0]);
    const importId = await startImport(service, owner, modpackId, "4200");

    const status = await waitForImport(service, owner, modpackId);
    expect(status).toMatchObject({ importId, status: "completed", modsImported: 50, modsFailed: 100, error: null });
    expect(status.failures).toHaveLength(100);
    expect(new Set(status.failures.map((failure) => failure.reason))).toEqual(new Set(["unavailable"]));
    expect(status.failures.map((failure) => failure.workshopId).sort()).toEqual(ids.slice(0, 100).sort());
    expect(proxy.calls.filter((endpoint) => endpoint === DETAILS)).toHaveLength(ATTEMPTS + 1);
    expect(await importNotifications(service, owner, importId)).toEqual([
      expect.objectContaining({ title: "Import finished with failures", type: "warning" }),
      expect.objectContaining({ title: "Import started", type: "info" }),
    ]);
  });

  it("waits out a single 429's Retry-After and a single hang, then imports everything", async () => {
    seedCollection("4300", 5, 43_000);
    const modpackId = await createModpack(service, owner, { name: "Fault target" });
    steam.failNext(1, "429", 1);
    steam.failNext(1, "hang");
    const startedAt = Date.now();
    const importId = await startImport(service, owner, modpackId, "4300");
    const status = await waitForImport(service, owner, modpackId);
    expect(status).toMatchObject({ importId, status: "completed", modsImported: 5, modsFailed: 0 });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(await importNotifications(service, owner, importId)).toEqual([
      expect.objectContaining({ title: "Import finished", type: "success" }),
      expect.objectContaining({ title: "Import started", type: "info" }),
    ]);
  });

  it("is not stuck afterwards: the next import completes at once", async () => {
    seedCollection("4400", 3, 44_000);
    const modpackId = await createModpack(service, owner, { name: "Fault target" });
    const startedAt = Date.now();
    await startImport(service, owner, modpackId, "4400");
    const status = await waitForImport(service, owner, modpackId, 10_000);
    expect(status).toMatchObject({ status: "completed", modsImported: 3, modsFailed: 0 });
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });
});

// ---------------------------------------------------------------------------------------------

function cookieValue(response: Response, name: string): string | undefined {
  for (const header of response.headers.getSetCookie()) {
    const [pair] = header.split(";");
    const separator = pair?.indexOf("=") ?? -1;
    if (pair && separator > 0 && pair.slice(0, separator) === name) return pair.slice(separator + 1);
  }
  return undefined;
}

/** Signs in through the development identity provider over real HTTP; answers the session cookie header. */
async function signInOverHttp(base: string, name: string): Promise<string> {
  const start = await fetch(`${base}/auth/idp`, { redirect: "manual" });
  expect(start.status).toBe(302);
  const state = cookieValue(start, "svcauth.oauth_state");
  const authorize = new URL(String(start.headers.get("location")));
  const form = new URLSearchParams(authorize.searchParams);
  form.set("name", name);
  form.set("email", `${name.toLowerCase().replace(/\W+/g, ".")}@example.com`);
  const approved = await fetch(`${authorize.origin}${authorize.pathname}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
  });
  expect(approved.status).toBe(302);
  const callback = await fetch(String(approved.headers.get("location")), {
    redirect: "manual",
    headers: { cookie: `svcauth.oauth_state=${state}` },
  });
  const session = cookieValue(callback, "svcauth.session_token");
  expect(session, `callback answered ${callback.status}`).toBeTruthy();
  return `svcauth.session_token=${session}`;
}

describe("the server killed with SIGKILL mid-import", () => {
  let database: TestDatabase;
  let dataDir: string | undefined;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    if (!hasPostgres) dataDir = await mkdtemp(path.join(tmpdir(), "mcs-faults-kill-"));
    database = await createTestDatabase(dataDir ? { dataDir } : {});
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await database.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("is finished by the next process with exact counts and no duplicate links", async () => {
    const env: Record<string, string> = {
      WORKSHOP_API_URL: steam.url,
      ...(database.url ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }),
    };
    const ids = Array.from({ length: 350 }, (_, index) => String(500_000 + index));
    for (const id of ids) steam.items.set(id, fakeItem(id));
    steam.collections.set("9500", ids);

    const first = await startServiceProcess(env);
    children.push(first.child);
    const cookie = await signInOverHttp(first.base, "Killed Importer");
    const headers = { cookie, "content-type": "application/json" };
    const created = await fetch(`${first.base}/modpacks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Killed mid-import" }),
    });
    expect(created.status).toBe(201);
    const modpackId = ((await created.json()) as { id: string }).id;

    // The collection and two detail batches are answered; the third batch is held while the process dies.
    steam.holdAfter(3);
    const started = await fetch(`${first.base}/modpacks/${modpackId}/import`, {
      method: "POST",
      headers,
      body: JSON.stringify({ platformUrl: workshopUrl("9500") }),
    });
    expect(started.status).toBe(202);
    const { importId } = (await started.json()) as { importId: string };
    // Detail batches are read ahead: the two answered ones are stored, the later ones stay held.
    const deadline = Date.now() + 60_000;
    let midway: { status: string; progress: { done: number; total: number } | null } | undefined;
    while (Date.now() < deadline) {
      const response = await fetch(`${first.base}/modpacks/${modpackId}/import/status`, { headers });
      midway = (await response.json()) as typeof midway;
      if (steam.held() > 0 && midway?.progress?.done === 200) break;
      await sleep(20);
    }
    expect(steam.held()).toBeGreaterThanOrEqual(1);
    expect(midway).toMatchObject({ status: "running", progress: { done: 200, total: 350 } });

    first.child.kill("SIGKILL");
    expect(await exitOf(first.child)).toBe("SIGKILL");
    steam.release();

    const killedAt = Date.now();
    const second = await startServiceProcess(env);
    children.push(second.child);
    let status: ImportStatus | undefined;
    const finishBy = Date.now() + 90_000;
    while (Date.now() < finishBy) {
      const response = await fetch(`${second.base}/modpacks/${modpackId}/import/status`, { headers });
      expect(response.status).toBe(200);
      status = (await response.json()) as ImportStatus;
      if (status.status === "completed" || status.status === "failed") break;
      await sleep(200);
    }
    process.stdout.write(`import finished ${Date.now() - killedAt} ms after the SIGKILL (restart included)\n`);
    expect(status).toMatchObject({ importId, status: "completed", modsImported: 350, modsFailed: 0, error: null });

    const listed = await fetch(`${second.base}/modpacks/${modpackId}/mods?limit=100`, { headers });
    expect(((await listed.json()) as { pagination: { total: number } }).pagination.total).toBe(350);

    second.child.kill("SIGTERM");
    expect(await exitOf(second.child)).toBe(0);

    // Straight from the database: one link per mod, and one import.
    const handle = await openDatabase({ databaseUrl: database.url, dataDir: database.dataDir });
    try {
      const links = await handle.db
        .selectFrom("modpackMods")
        .select([sql<number>`count(*)::int`.as("rows"), sql<number>`count(distinct mod_id)::int`.as("mods")])
        .where("modpackId", "=", modpackId)
        .executeTakeFirstOrThrow();
      expect(links).toEqual({ rows: 350, mods: 350 });
      const imports = await handle.db
        .selectFrom("imports")
        .select("status")
        .where("modpackId", "=", modpackId)
        .execute();
      expect(imports).toEqual([{ status: "completed" }]);
    } finally {
      await handle.close();
    }
  }, 420_000);
});
