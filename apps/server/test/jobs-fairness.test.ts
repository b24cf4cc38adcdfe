import type { LightMyRequestResponse } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkers } from "../src/jobs/boss.js";
import { exportJob } from "../src/jobs/export.js";
import { EXPORT_QUEUE, IMPORT_QUEUE } from "../src/services/ports.js";
import { type FakeSteam, fakeItem, heldCalls, startFakeSteam } from "./fixtures/steam-api.js";
import { requestFile } from "./support/modpacks.js";
import { addMembers, insertExports, insertImport, insertModpack, insertMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { workshopUrl } from "./support/workshop.js";

/** The per-user bounds this file's service runs with. */
const LIMITS = { exports: 20, imports: 2, refreshes: 2 };
/**
 * How long a drained backlog may take here: generous for a shared machine, yet shorter than the
 * 30 s a worker used to sleep between jobs queued in one burst.
 */
const DRAIN_DEADLINE_MS = 20_000;
const TOO_MANY = { error: { message: expect.any(String), code: "TOO_MANY_REQUESTS" } };

let service: TestService;
let steam: FakeSteam;
let modIds: string[] = [];

beforeAll(async () => {
  steam = await startFakeSteam();
  service = await startTestService({
    env: {
      WORKSHOP_API_URL: steam.url,
      MAX_PENDING_EXPORTS_PER_USER: String(LIMITS.exports),
      MAX_PENDING_IMPORTS_PER_USER: String(LIMITS.imports),
      MAX_RUNNING_REFRESHES_PER_USER: String(LIMITS.refreshes),
    },
  });
  const rows = await insertMods(
    service,
    Array.from({ length: 30 }, (_, index) => ({
      workshopId: String(5_000_000 + index),
      name: `Fair mod ${index}`,
      platformModIds: [`FairMod${index}`],
      mapFolders: index % 10 === 0 ? [`FairMap${index}`] : [],
    })),
  );
  modIds = rows.map((row) => row.id);
});
afterAll(async () => {
  await service?.stop();
  await steam?.close();
});

function call(method: "GET" | "POST", url: string, user: SignedIn, payload?: object): Promise<LightMyRequestResponse> {
  return service.app.inject({ method, url, headers: user.headers, ...(payload === undefined ? {} : { payload }) });
}

/** A private modpack of `owner` holding the catalogue's 30 mods. */
function seedModpack(owner: SignedIn): Promise<string> {
  return insertModpack(service, { ownerId: owner.userId, modIds });
}

/** `count` different server files of one user: two versions of fresh modpacks. */
async function burstOf(user: SignedIn, count: number): Promise<Array<{ modpackId: string; version: "41x" | "42x" }>> {
  const modpacks = await Promise.all(Array.from({ length: Math.ceil(count / 2) }, () => seedModpack(user)));
  return Array.from({ length: count }, (_, index) => ({
    modpackId: modpacks[Math.floor(index / 2)] as string,
    version: index % 2 === 0 ? "41x" : "42x",
  }));
}

/** Polls exports' status until none is pending or running; throws past the deadline naming the ones left. */
async function waitForExports(ids: string[], deadlineMs = DRAIN_DEADLINE_MS) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const rows = await service.runtime.database.db
      .selectFrom("exports")
      .select(["id", "status", "finishedAt"])
      .where("id", "in", ids)
      .execute();
    const open = rows.filter((row) => row.status === "pending" || row.status === "running");
    if (rows.length === ids.length && open.length === 0) return new Map(rows.map((row) => [row.id, row]));
    if (Date.now() > deadline) {
      throw new Error(`${open.length} of ${ids.length} exports still pending or running after ${deadlineMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How long a worker sleeps between polls in the tests that rule polls out: far past every bound here. */
const NO_POLL_SECONDS = 3600;
/** A bound on a drain that must not wait for a poll: generous for a loaded machine, a small part of one poll. */
const NO_POLL_BOUND_MS = 50_000;

/**
 * Restarts this instance's export workers as configured except that an idle worker sleeps an
 * hour: a job that finishes sooner was fetched back to back or woken by NOTIFY, never by a poll.
 * Answers how to put the configured workers back (safe to call twice).
 */
async function exportWorkersWithoutPolls(): Promise<() => Promise<void>> {
  const { boss } = service.runtime.jobs;
  const definition = exportJob({ db: service.runtime.database.db });
  await boss.offWork(EXPORT_QUEUE);
  await startWorkers(boss, [
    {
      ...definition,
      work: {
        ...definition.work,
        pollingIntervalSeconds: NO_POLL_SECONDS,
        notifyPollingIntervalSeconds: NO_POLL_SECONDS,
      },
    },
  ]);
  let restored = false;
  return async () => {
    if (restored) return;
    restored = true;
    await boss.offWork(EXPORT_QUEUE);
    await startWorkers(boss, [definition]);
  };
}

/** Stops this instance's export workers (as if busy elsewhere) and answers how to start them again. */
async function pauseExportWorkers(): Promise<() => Promise<void>> {
  const { boss } = service.runtime.jobs;
  await boss.offWork(EXPORT_QUEUE);
  return () => startWorkers(boss, [exportJob({ db: service.runtime.database.db })]);
}

async function count(table: "exports" | "imports" | "notifications", column: "requestedBy" | "userId", userId: string) {
  const row = await service.runtime.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where(column, "=", userId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function jobsIn(queue: string): Promise<number> {
  const { rows } = await sql<{
    count: number;
  }>`select count(*)::int as count from pgboss.job where name = ${queue}`.execute(service.runtime.database.db);
  return Number(rows[0]?.count ?? 0);
}

describe("a backlog of jobs", () => {
  it("drains a burst of server files back to back, without waiting for a poll between jobs", async () => {
    const user = await signIn(service, { name: "Burst" });
    const files = await burstOf(user, LIMITS.exports);
    const { work } = exportJob({ db: service.runtime.database.db });
    // The configured worker fetches in batches; otherwise a burst would be one job per poll.
    expect(work?.batchSize).toBeGreaterThan(1);

    // A backlog already queued when the workers start is fetched batch after batch, with no
    // poll between them: with every poll an hour long, it is still drained well within the bound.
    const restore = await pauseExportWorkers();
    let ids: string[] = [];
    try {
      for (const file of files) ids.push(await requestFile(service, user, file.modpackId, file.version));
    } finally {
      await restore();
    }
    const stopPolling = await exportWorkersWithoutPolls();
    try {
      const done = await waitForExports(ids, NO_POLL_BOUND_MS);
      expect([...done.values()].map((row) => row.status)).toEqual(ids.map(() => "completed"));

      // A burst requested while the workers sleep: each request's NOTIFY wakes them, and the
      // burst is fetched back to back again. The embedded database has no NOTIFY; its workers
      // wake on their configured poll instead, so there the second burst runs on the real workers.
      if (service.runtime.database.kind !== "postgres") await stopPolling();
      const again = await burstOf(user, LIMITS.exports);
      ids = await Promise.all(again.map((file) => requestFile(service, user, file.modpackId, file.version)));
      expect(new Set(ids).size).toBe(again.length);
      const second = await waitForExports(ids, NO_POLL_BOUND_MS);
      expect([...second.values()].map((row) => row.status)).toEqual(ids.map(() => "completed"));
    } finally {
      await stopPolling();
    }
    for (const id of ids) {
      const download = await call("GET", `/modpacks/export/${id}/download`, user);
      expect(download.statusCode, download.body).toBe(200);
      expect(download.body).toContain("Mods=");
    }
  });

  it("finishes another user's file while the first user's backlog is still being worked", async () => {
    const first = await signIn(service, { name: "Backlog" });
    const second = await signIn(service, { name: "Behind" });
    const files = await burstOf(first, LIMITS.exports);
    const theirs = await seedModpack(second);

    const resume = await pauseExportWorkers();
    const backlog: string[] = [];
    let single = "";
    try {
      for (const file of files) backlog.push(await requestFile(service, first, file.modpackId, file.version));
      single = await requestFile(service, second, theirs, "42x");
    } finally {
      await resume();
    }
    const done = await waitForExports([...backlog, single]);

    const singleDone = done.get(single);
    expect(singleDone?.status).toBe("completed");
    const finishedAfter = backlog.filter(
      (id) => (done.get(id)?.finishedAt?.getTime() ?? 0) > (singleDone?.finishedAt?.getTime() ?? 0),
    );
    // Queued last, worked among the first: most of the backlog was still waiting when it was ready.
    expect(finishedAfter.length).toBeGreaterThanOrEqual(backlog.length / 2);
  });
});

describe("an identical server-file request already queued", () => {
  it("answers the pending export instead of queueing another", async () => {
    const owner = await signIn(service, { name: "Repeater" });
    const member = await signIn(service, { name: "Member" });
    const modpackId = await seedModpack(owner);
    await addMembers(service, modpackId, [{ userId: member.userId, permission: ["read"] }]);

    const resume = await pauseExportWorkers();
    const requested: Record<string, string> = {};
    const before = { exports: await count("exports", "requestedBy", owner.userId), jobs: await jobsIn(EXPORT_QUEUE) };
    try {
      const cases: Array<{ name: string; user: SignedIn; version: "41x" | "42x" }> = [
        { name: "first", user: owner, version: "41x" },
        { name: "again", user: owner, version: "41x" },
        { name: "third time", user: owner, version: "41x" },
        { name: "other version", user: owner, version: "42x" },
        { name: "other user", user: member, version: "41x" },
      ];
      for (const entry of cases) {
        const response = await call("POST", `/modpacks/${modpackId}/server-file`, entry.user, {
          version: entry.version,
        });
        expect(response.statusCode, `${entry.name}: ${response.body}`).toBe(202);
        expect(response.json()).toEqual({ exportId: expect.any(String), status: "pending" });
        requested[entry.name] = response.json().exportId;
      }
      expect(requested.again).toBe(requested.first);
      expect(requested["third time"]).toBe(requested.first);
      expect(requested["other version"]).not.toBe(requested.first);
      expect(requested["other user"]).not.toBe(requested.first);
      expect(await count("exports", "requestedBy", owner.userId)).toBe(before.exports + 2);
      expect(await jobsIn(EXPORT_QUEUE)).toBe(before.jobs + 3);
    } finally {
      await resume();
    }

    const ids = Object.values(requested);
    const done = await waitForExports([...new Set(ids)]);
    expect([...done.values()].every((row) => row.status === "completed")).toBe(true);
    const started = await service.runtime.database.db
      .selectFrom("notifications")
      .select("metadata")
      .where("userId", "=", owner.userId)
      .where("title", "=", "Server file generation started")
      .execute();
    expect(started.map((row) => row.metadata.exportId).sort()).toEqual(
      [requested.first, requested["other version"]].sort(),
    );

    // Once the file exists, asking again makes a new one (the configuration may have changed).
    const later = await requestFile(service, owner, modpackId, "41x");
    expect(later).not.toBe(requested.first);
  });
});

describe("concurrent server-file requests of one user", () => {
  it("are counted exactly: identical ones share one export, and no more than the bound are accepted", async () => {
    const user = await signIn(service, { name: "Concurrent" });
    const modpackId = await seedModpack(user);
    const free = 3;
    const filler = await seedModpack(user);
    await insertExports(
      service,
      Array.from({ length: LIMITS.exports - free }, () => ({ modpackId: filler, requestedBy: user.userId })),
    );
    const others = await Promise.all(Array.from({ length: 2 * free }, () => seedModpack(user)));

    const resume = await pauseExportWorkers();
    let identical: LightMyRequestResponse[] = [];
    let distinct: LightMyRequestResponse[] = [];
    try {
      identical = await Promise.all(
        Array.from({ length: 5 }, () => call("POST", `/modpacks/${modpackId}/server-file`, user, { version: "42x" })),
      );
      distinct = await Promise.all(
        others.map((id) => call("POST", `/modpacks/${id}/server-file`, user, { version: "42x" })),
      );
    } finally {
      await resume();
    }
    expect(identical.map((response) => response.statusCode)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(identical.map((response) => response.json().exportId)).size).toBe(1);
    const statuses = distinct.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([...Array(free - 1).fill(202), ...Array(others.length - free + 1).fill(429)]);
    expect(await count("exports", "requestedBy", user.userId)).toBe(LIMITS.exports);
  });
});

describe("the per-user bound on refreshes", () => {
  it("answers 429 to a refresh past the user's refreshes in flight, without calling the workshop", async () => {
    const user = await signIn(service, { name: "Refresher" });
    const other = await signIn(service, { name: "Other refresher" });
    const workshopIds = ["6100", "6101", "6102", "6103"];
    for (const id of workshopIds) steam.items.set(id, fakeItem(id, { title: `Refreshed ${id}` }));
    const mods = await insertMods(
      service,
      workshopIds.map((id) => ({ workshopId: id, name: `Stale ${id}`, platformModIds: [id] })),
    );
    const modId = (index: number) => mods[index]?.id as string;

    steam.holdAfter(0);
    let inFlight: Array<Promise<LightMyRequestResponse>> = [];
    try {
      inFlight = Array.from({ length: LIMITS.refreshes }, (_, index) =>
        call("POST", `/mods/${modId(index)}/refresh`, user),
      );
      await heldCalls(steam, LIMITS.refreshes);
      const calls = steam.calls.length;

      const refused = await call("POST", `/mods/${modId(LIMITS.refreshes)}/refresh`, user);
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
      expect(refused.json()).toEqual(TOO_MANY);
      expect(steam.calls.length).toBe(calls);

      inFlight.push(call("POST", `/mods/${modId(LIMITS.refreshes + 1)}/refresh`, other));
      await heldCalls(steam, LIMITS.refreshes + 1);
    } finally {
      steam.release();
    }
    const answered = await Promise.all(inFlight);
    expect(answered.map((response) => response.statusCode)).toEqual(inFlight.map(() => 200));
    const stale = await service.runtime.database.db
      .selectFrom("mods")
      .select("name")
      .where("id", "=", modId(LIMITS.refreshes))
      .executeTakeFirstOrThrow();
    expect(stale.name).toBe(`Stale ${workshopIds[LIMITS.refreshes]}`);

    // With the earlier ones done, the user may refresh again.
    const again = await call("POST", `/mods/${modId(LIMITS.refreshes)}/refresh`, user);
    expect(again.statusCode, again.body).toBe(200);
  });
});

describe("the per-user bound on queued work", () => {
  interface BoundCase {
    name: string;
    limit: number;
    /** Fills the user's quota directly in the database (nothing works these rows). */
    fill(user: SignedIn): Promise<void>;
    /** The request past the bound. */
    send(user: SignedIn): Promise<LightMyRequestResponse>;
    /** What the refused request must not change. */
    written(user: SignedIn): Promise<number[]>;
  }

  const fillExports = async (user: SignedIn) => {
    const modpackId = await seedModpack(user);
    await insertExports(
      service,
      Array.from({ length: LIMITS.exports }, (_, index) => ({
        modpackId,
        requestedBy: user.userId,
        version: index % 2 === 0 ? ("41x" as const) : ("42x" as const),
        status: index % 3 === 0 ? ("running" as const) : ("pending" as const),
      })),
    );
  };
  const fillImports = async (user: SignedIn) => {
    for (let index = 0; index < LIMITS.imports; index++) {
      await insertImport(service, {
        modpackId: await seedModpack(user),
        requestedBy: user.userId,
        collectionId: String(900 + index),
        status: index === 0 ? "running" : "pending",
      });
    }
  };

  const cases: BoundCase[] = [
    {
      name: "server files (REST)",
      limit: LIMITS.exports,
      fill: fillExports,
      send: async (user) => call("POST", `/modpacks/${await seedModpack(user)}/server-file`, user, { version: "41x" }),
      written: async (user) => [
        await count("exports", "requestedBy", user.userId),
        await count("notifications", "userId", user.userId),
        await jobsIn(EXPORT_QUEUE),
      ],
    },
    {
      name: "server files (tRPC)",
      limit: LIMITS.exports,
      fill: fillExports,
      send: async (user) =>
        service.app.inject({
          method: "POST",
          url: "/trpc/exports.requestServerFile",
          headers: { ...user.headers, "content-type": "application/json" },
          payload: { id: await seedModpack(user), version: "42x" },
        }),
      written: async (user) => [
        await count("exports", "requestedBy", user.userId),
        await count("notifications", "userId", user.userId),
        await jobsIn(EXPORT_QUEUE),
      ],
    },
    {
      name: "imports (REST)",
      limit: LIMITS.imports,
      fill: fillImports,
      send: async (user) =>
        call("POST", `/modpacks/${await seedModpack(user)}/import`, user, { platformUrl: workshopUrl("777") }),
      written: async (user) => [
        await count("imports", "requestedBy", user.userId),
        await count("notifications", "userId", user.userId),
        await jobsIn(IMPORT_QUEUE),
      ],
    },
  ];

  for (const entry of cases) {
    it(`answers 429 with Retry-After and the error body for ${entry.name}, writing nothing`, async () => {
      const user = await signIn(service, { name: `Bounded ${entry.name}` });
      await entry.fill(user);
      const before = await entry.written(user);

      const response = await entry.send(user);
      expect(response.statusCode, response.body).toBe(429);
      expect(response.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
      if (entry.name.includes("tRPC")) {
        expect(response.json().error.data).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429 });
      } else {
        expect(response.json()).toEqual(TOO_MANY);
        expect(response.json().error.message).toContain(`at most ${entry.limit}`);
      }
      expect(await entry.written(user)).toEqual(before);

      // Another user is not bounded by this one's queue.
      const other = await signIn(service, { name: `Unbounded ${entry.name}` });
      const accepted = await entry.send(other);
      expect(accepted.statusCode, accepted.body).toBeLessThan(300);
    });
  }
});

describe("the OpenAPI document", () => {
  it("declares 429 with Retry-After on the operations that queue work", async () => {
    const document = (await service.app.inject({ method: "GET", url: "/openapi.json" })).json();
    for (const [path, method] of [
      ["/modpacks/{id}/server-file", "post"],
      ["/modpacks/{id}/import", "post"],
      ["/mods/{id}/refresh", "post"],
    ] as const) {
      // The shared 429, which says it covers queued work too.
      expect(document.paths[path][method].responses["429"], `${method} ${path}`).toEqual({
        $ref: "#/components/responses/TooManyRequests",
      });
    }
    expect(document.components.responses.TooManyRequests).toMatchObject({
      description: expect.stringMatching(/queued or in progress/),
      headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
    expect(document.components.headers["Retry-After"]).toMatchObject({ schema: { type: "integer" } });
    expect(document.paths["/modpacks/{id}/server-file"].post.description).toContain("instead of queueing another");
  });
});
