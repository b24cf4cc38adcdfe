/**
 * Load test: `pnpm test:load` (LOAD_SECONDS, default 60; DATABASE_URL required).
 *
 * Creates a fresh Postgres database from DATABASE_URL, seeds users (with API tokens), public
 * modpacks and catalogue mods through the service itself, starts the real server process
 * (src/main.ts) on it, and drives 64 connections of mixed reads and writes with autocannon, each
 * request carrying the Bearer token of a seeded user. Then it checks: no 5xx, no unexpected 4xx,
 * no socket errors or timeouts, and every modpack the load created (201 to POST /modpacks) is in
 * the database exactly once. Prints a summary table; exits 1 on any failure.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import pg from "pg";
import { fakeItem, startFakeSteam } from "../test/fixtures/steam-api.js";
import { createTestDatabase, type TestDatabase } from "../test/support/database.js";
import { exitOf, type ServiceProcess, startServiceProcess } from "../test/support/process.js";
import { startTestService } from "../test/support/service.js";
import { signIn } from "../test/support/users.js";

const CONNECTIONS = 64;
const USERS = 8;
const MODPACKS_PER_USER = 2;
const MODS = 20;
/** Creates stop this long before the end, so none is in flight when autocannon stops and all are counted. */
const DRAIN_MS = 2000;

interface Seed {
  users: Array<{ token: string; modpackIds: string[] }>;
  publicModpackIds: string[];
  inGameIds: string[];
}

function fail(message: string): never {
  process.stderr.write(`test:load: ${message}\n`);
  process.exit(1);
}

function readSeconds(): number {
  const text = process.env.LOAD_SECONDS ?? "60";
  const seconds = Number(text);
  if (!Number.isInteger(seconds) || seconds < 5) fail(`LOAD_SECONDS must be an integer of at least 5, not ${text}`);
  return seconds;
}

/** Users with API tokens, public modpacks with a few mods each, and a catalogue of mods, made through the service. */
async function seed(database: TestDatabase, workshopUrl: string): Promise<Seed> {
  const service = await startTestService({ database, env: { WORKSHOP_API_URL: workshopUrl } });
  try {
    const inject = async (method: string, url: string, token: string, payload?: object) => {
      const response = await service.app.inject({
        method: method as "POST",
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });
      if (response.statusCode >= 300)
        throw new Error(`seeding: ${method} ${url} answered ${response.statusCode}: ${response.body}`);
      return response.json() as Record<string, unknown>;
    };
    const inGameIds: string[] = [];
    const users: Seed["users"] = [];
    for (let index = 0; index < USERS; index++) {
      const user = await signIn(service, { name: `Load user ${index}` });
      const created = await inject("POST", "/auth/tokens", user.token, { name: "load" });
      users.push({ token: String(created.token), modpackIds: [] });
    }
    const first = users[0]!;
    for (let index = 0; index < MODS; index++) {
      const workshopId = String(700_001 + index);
      await inject("POST", "/mods", first.token, { modAttribute: workshopId });
      inGameIds.push(`Mod${workshopId}`);
    }
    for (const [userIndex, user] of users.entries()) {
      for (let index = 0; index < MODPACKS_PER_USER; index++) {
        const modpack = await inject("POST", "/modpacks", user.token, {
          name: `Seeded pack ${userIndex}-${index}`,
          description: "Seeded for the load test",
          isPublic: true,
        });
        const id = String(modpack.id);
        user.modpackIds.push(id);
        for (let mod = 0; mod < 3; mod++) {
          await inject("POST", `/modpacks/${id}/mods`, user.token, {
            modAttribute: inGameIds[(userIndex * 3 + index + mod) % MODS],
          });
        }
      }
    }
    return { users, publicModpackIds: users.flatMap((user) => user.modpackIds), inGameIds };
  } finally {
    await service.stop();
  }
}

/**
 * The real server process, logging warnings only, so logging costs nothing under load. Its request
 * rate limits are off, as behind a gateway that limits: a few simulated users send far more than
 * any person would, and every request of the load must be answered.
 */
async function startServer(databaseUrl: string, workshopUrl: string): Promise<ServiceProcess> {
  try {
    return await startServiceProcess({
      LOG_LEVEL: "warn",
      DATABASE_URL: databaseUrl,
      WORKSHOP_API_URL: workshopUrl,
      RATE_LIMIT_PER_MINUTE: "0",
      RATE_LIMIT_WORKSHOP_PER_MINUTE: "0",
      RATE_LIMIT_MEMBER_ADD_PER_MINUTE: "0",
      ...(process.env.DATABASE_POOL_SIZE ? { DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE } : {}),
    });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

interface RouteStats {
  requests: number;
  statuses: Map<number, number>;
}

function pick<T>(values: T[]): T {
  return values[Math.floor(Math.random() * values.length)]!;
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    fail(
      "DATABASE_URL is required: the load test creates (and drops) its own database on that Postgres server, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm test:load",
    );
  }
  const seconds = readSeconds();
  const marker = `load-${randomBytes(4).toString("hex")}`;
  const steam = await startFakeSteam();
  for (let index = 0; index < MODS; index++) {
    const id = String(700_001 + index);
    steam.items.set(
      id,
      fakeItem(id, { title: `Load Mod ${index}`, tags: ["Build 41", index % 2 ? "Weapons" : "Maps"] }),
    );
  }
  // Outside a test run there is no migrated copy to start from: the service's start migrates it.
  const database = await createTestDatabase({ empty: true });
  let server: ServiceProcess | undefined;
  const failures: string[] = [];
  try {
    process.stdout.write(`test:load: seeding ${database.url?.replace(/\/\/[^@]*@/, "//")}\n`);
    const world = await seed(database, steam.url);
    server = await startServer(database.url!, steam.url);

    const stats = new Map<string, RouteStats>();
    const record = (route: string, status: number) => {
      let entry = stats.get(route);
      if (!entry) {
        entry = { requests: 0, statuses: new Map() };
        stats.set(route, entry);
      }
      entry.requests += 1;
      entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    };
    const createdNames = new Set<string>();
    const createdIds = new Set<string>();
    let createsSent = 0;
    let sequence = 0;
    const createsUntil = Date.now() + seconds * 1000 - DRAIN_MS;

    type Context = { user?: Seed["users"][number]; createName?: string };
    const userOf = (context: Context) => {
      context.user = pick(world.users);
      return context.user;
    };
    const bearer = (token: string, json = false) => ({
      authorization: `Bearer ${token}`,
      ...(json ? { "content-type": "application/json" } : {}),
    });
    const searches = ["Load Mod", "mod 1", "Mod700003", "weapons", "zzz-nothing", "Seeded"];

    const requests: autocannon.Request[] = [
      {
        method: "GET",
        path: "/modpacks/public",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          return {
            ...request,
            path: `/modpacks/public?limit=20&page=${1 + (sequence++ % 3)}`,
            headers: bearer(user.token),
          };
        },
        onResponse: (status) => record("GET /modpacks/public", status),
      },
      {
        method: "GET",
        path: "/modpacks/x",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          return { ...request, path: `/modpacks/${pick(world.publicModpackIds)}`, headers: bearer(user.token) };
        },
        onResponse: (status) => record("GET /modpacks/{id}", status),
      },
      {
        method: "GET",
        path: "/modpacks/x/mods",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          return { ...request, path: `/modpacks/${pick(world.publicModpackIds)}/mods`, headers: bearer(user.token) };
        },
        onResponse: (status) => record("GET /modpacks/{id}/mods", status),
      },
      {
        method: "GET",
        path: "/mods",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          return {
            ...request,
            path: `/mods?search=${encodeURIComponent(pick(searches))}`,
            headers: bearer(user.token),
          };
        },
        onResponse: (status) => record("GET /mods?search=", status),
      },
      {
        method: "POST",
        path: "/modpacks",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          if (Date.now() > createsUntil) {
            // The last seconds: no new creates, so every create sent has been answered when the run ends.
            context.createName = undefined;
            return {
              ...request,
              method: "GET",
              path: "/modpacks/public",
              headers: bearer(user.token),
              body: undefined,
            };
          }
          createsSent += 1;
          context.createName = `${marker}-${createsSent}`;
          return {
            ...request,
            method: "POST",
            path: "/modpacks",
            headers: bearer(user.token, true),
            body: JSON.stringify({ name: context.createName, description: "Created by the load test" }),
          };
        },
        onResponse: (status, body, context: Context) => {
          if (context.createName === undefined) return record("GET /modpacks/public (drain)", status);
          record("POST /modpacks", status);
          if (status === 201) {
            createdNames.add(context.createName);
            createdIds.add(String((JSON.parse(body) as { id: string }).id));
          }
        },
      },
      {
        method: "PATCH",
        path: "/modpacks/x",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          return {
            ...request,
            path: `/modpacks/${pick(user.modpackIds)}`,
            headers: bearer(user.token, true),
            body: JSON.stringify({ description: `Patched at ${Date.now()}` }),
          };
        },
        onResponse: (status) => record("PATCH /modpacks/{id}", status),
      },
      {
        method: "POST",
        path: "/modpacks/x/mods",
        setupRequest: (request, context: Context) => {
          const user = userOf(context);
          return {
            ...request,
            path: `/modpacks/${pick(user.modpackIds)}/mods`,
            headers: bearer(user.token, true),
            body: JSON.stringify({ modAttribute: pick(world.inGameIds) }),
          };
        },
        onResponse: (status) => record("POST /modpacks/{id}/mods", status),
      },
    ];

    process.stdout.write(`test:load: ${CONNECTIONS} connections for ${seconds} s against ${server.base}\n`);
    const result = await autocannon({
      url: server.base,
      connections: CONNECTIONS,
      duration: seconds,
      timeout: 10,
      requests,
    });

    // ---- Checks.
    const statusCodes = Object.entries(result.statusCodeStats ?? {}).map(
      ([status, entry]) => [Number(status), Number((entry as { count: number | string }).count)] as const,
    );
    const count5xx = statusCodes.filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0);
    const count4xx = statusCodes
      .filter(([status]) => status >= 400 && status < 500)
      .reduce((sum, [, count]) => sum + count, 0);
    if (count5xx > 0) failures.push(`${count5xx} responses were 5xx`);
    if (count4xx > 0) failures.push(`${count4xx} responses were 4xx (every request of the load is valid)`);
    if (result.errors > 0) failures.push(`${result.errors} socket errors`);
    if (result.timeouts > 0) failures.push(`${result.timeouts} timeouts`);
    if (result.requests.total === 0) failures.push("no request was answered");

    // Stop the server gracefully before reading the database. autocannon drops the requests in
    // flight when time is up; their handlers still run, and a graceful stop does not wait for a
    // handler whose client has gone (its queries then fail on the closed pool), so let them finish.
    await sleep(1500);
    server.child.kill("SIGTERM");
    const code = await exitOf(server.child);
    if (code !== 0) failures.push(`the server exited with ${code} on SIGTERM`);
    server = undefined;

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let rows: Array<{ id: string; name: string }>;
    let duplicates: Array<{ name: string; copies: number }>;
    try {
      rows = (await client.query("select id, name from modpacks where name like $1", [`${marker}-%`])).rows;
      duplicates = (
        await client.query(
          "select name, count(*)::int as copies from modpacks where name like $1 group by name having count(*) > 1",
          [`${marker}-%`],
        )
      ).rows;
    } finally {
      await client.end();
    }
    const rowNames = new Set(rows.map((row) => row.name));
    const missing = [...createdNames].filter((name) => !rowNames.has(name));
    const unacknowledged = rows.filter((row) => !createdNames.has(row.name));
    const unknownIds = [...createdIds].filter((id) => !rows.some((row) => row.id === id));
    if (rows.length !== createdNames.size) {
      failures.push(`${createdNames.size} creates answered 201 but ${rows.length} rows carry the marker ${marker}`);
    }
    if (duplicates.length > 0) failures.push(`${duplicates.length} created names are stored more than once`);
    if (missing.length > 0) failures.push(`${missing.length} modpacks answered 201 are missing (e.g. ${missing[0]})`);
    if (unacknowledged.length > 0) failures.push(`${unacknowledged.length} rows were stored without a 201`);
    if (unknownIds.length > 0) failures.push(`${unknownIds.length} ids answered with 201 are not in the database`);

    // ---- Summary.
    const table = [...stats.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([route, entry]) => ({
        route,
        requests: entry.requests,
        statuses: [...entry.statuses.entries()]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}×${count}`)
          .join(" "),
      }));
    process.stdout.write("\n");
    console.table(table);
    const summary = {
      seconds: result.duration,
      connections: CONNECTIONS,
      "requests total": result.requests.total,
      "req/s (mean)": Math.round(result.requests.average),
      "latency p50 (ms)": result.latency.p50,
      "latency p99 (ms)": result.latency.p99,
      "latency max (ms)": result.latency.max,
      "2xx": result["2xx"],
      "4xx": count4xx,
      "5xx": count5xx,
      "socket errors": result.errors,
      timeouts: result.timeouts,
      "modpacks created (201)": createdNames.size,
      "rows with the marker": rows.length,
    };
    console.table(Object.entries(summary).map(([measure, value]) => ({ measure, value })));
  } finally {
    if (server) {
      server.child.kill("SIGKILL");
      await exitOf(server.child);
    }
    await database.drop().catch((error: unknown) => failures.push(`dropping the database failed: ${String(error)}`));
    await steam.close();
  }
  if (failures.length > 0) {
    process.stderr.write(`\ntest:load FAILED:\n${failures.map((line) => `  - ${line}`).join("\n")}\n`);
    process.exit(1);
  }
  process.stdout.write("\ntest:load passed\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`test:load: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
