import { setTimeout as sleep } from "node:timers/promises";
import { parse as parseDisposition } from "content-disposition";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_DEAD_LETTER_QUEUE, exportJob } from "../src/jobs/export.js";
import { notificationsOf, requestFile, waitForExport } from "./support/modpacks.js";
import { type InsertedMod, insertExports, insertMod, insertModpack, linkMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const ACCESS_DENIED = { error: { message: "Access denied", code: "FORBIDDEN" } };
const UNKNOWN_ID = "01a1fe07-0000-7000-8000-000000000000";

let service: TestService;
let owner: SignedIn;
let configurer: SignedIn;
let reader: SignedIn;
let stranger: SignedIn;

let modA: InsertedMod;
let modB: InsertedMod;
let modC: InsertedMod;
let modD: InsertedMod;
let foreignMod: InsertedMod;

let workshopCounter = 3_000_000_000;

async function seedMod(name: string, platformModIds: string[], mapFolders: string[] = []): Promise<InsertedMod> {
  workshopCounter += 1;
  return insertMod(service, { workshopId: String(workshopCounter), name, platformModIds, mapFolders });
}

/** A modpack of `owner` with `configurer` (read, configure) and `reader` (read) as members and the mods linked in order. */
function seedModpack(options: { name?: string; isPublic?: boolean; mods?: InsertedMod[] } = {}): Promise<string> {
  return insertModpack(service, {
    ownerId: owner.userId,
    ...(options.name ? { name: options.name } : {}),
    isPublic: options.isPublic ?? false,
    modIds: (options.mods ?? []).map((mod) => mod.id),
    members: [
      { userId: configurer.userId, permission: ["read", "configure"] },
      { userId: reader.userId, permission: ["read"] },
    ],
  });
}

function call(
  method: "GET" | "POST" | "PUT" | "DELETE",
  url: string,
  user: SignedIn | null,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method,
    url,
    headers: user ? user.headers : {},
    ...(payload === undefined ? {} : { payload }),
  });
}

async function insertExport(
  modpackId: string,
  requester: SignedIn,
  values: { status: "pending" | "failed"; error?: string },
): Promise<string> {
  const [id] = await insertExports(service, [{ modpackId, requestedBy: requester.userId, ...values }]);
  return id as string;
}

beforeAll(async () => {
  service = await startTestService();
  owner = await signIn(service, { name: "Owner" });
  configurer = await signIn(service, { name: "Configurer" });
  reader = await signIn(service, { name: "Reader" });
  stranger = await signIn(service, { name: "Stranger" });
  modA = await seedMod("Mod A", ["ModA", "ModA_extra"], ["AMap"]);
  modB = await seedMod("Mod B", ["ModB"], ["BMap"]);
  modC = await seedMod("Mod C", ["ModC"], ["CMap"]);
  modD = await seedMod("Mod D", ["ModD"]);
  foreignMod = await seedMod("Foreign mod", ["Foreign"]);
});
afterAll(() => service.stop());

describe("export configuration", () => {
  it("defaults to the active mods in the order they were added, every in-game id selected", async () => {
    const id = await seedModpack({ mods: [modB, modA, modC] });
    const response = await call("GET", `/modpacks/${id}/export-configuration`, owner);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      modsOrder: [modB.id, modA.id, modC.id],
      modConfig: {
        [modB.id]: { selectedPlatformModIds: ["ModB"] },
        [modA.id]: { selectedPlatformModIds: ["ModA", "ModA_extra"] },
        [modC.id]: { selectedPlatformModIds: ["ModC"] },
      },
    });
  });

  it("applies a saved order, appends mods added later and drops removed ones", async () => {
    const id = await seedModpack({ mods: [modA, modB, modC] });
    const saved = await call("PUT", `/modpacks/${id}/export-configuration`, owner, {
      modsOrder: [modC.id, modA.id],
      modConfig: { [modA.id]: { selectedPlatformModIds: ["ModA_extra"] } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const expected = {
      modsOrder: [modC.id, modA.id, modB.id],
      modConfig: {
        [modC.id]: { selectedPlatformModIds: ["ModC"] },
        [modA.id]: { selectedPlatformModIds: ["ModA_extra"] },
        [modB.id]: { selectedPlatformModIds: ["ModB"] },
      },
    };
    expect(saved.json()).toEqual(expected);
    expect((await call("GET", `/modpacks/${id}/export-configuration`, reader)).json()).toEqual(expected);

    await linkMods(service, id, owner.userId, [modD.id]);
    const removed = await call("DELETE", `/modpacks/${id}/mods/${modA.id}`, owner);
    expect(removed.statusCode, removed.body).toBe(200);
    const after = await call("GET", `/modpacks/${id}/export-configuration`, owner);
    expect(after.json()).toEqual({
      modsOrder: [modC.id, modB.id, modD.id],
      modConfig: {
        [modC.id]: { selectedPlatformModIds: ["ModC"] },
        [modB.id]: { selectedPlatformModIds: ["ModB"] },
        [modD.id]: { selectedPlatformModIds: ["ModD"] },
      },
    });
  });

  it("answers 422 for a mod that is not active in the modpack, naming it", async () => {
    const id = await seedModpack({ mods: [modA, modB] });
    await call("DELETE", `/modpacks/${id}/mods/${modB.id}`, owner);
    for (const body of [
      { modsOrder: [modA.id, foreignMod.id], modConfig: {} },
      { modsOrder: [modA.id], modConfig: { [foreignMod.id]: { selectedPlatformModIds: [] } } },
      { modsOrder: [modB.id] },
      { modsOrder: [UNKNOWN_ID] },
    ]) {
      const response = await call("PUT", `/modpacks/${id}/export-configuration`, owner, body);
      expect(response.statusCode, response.body).toBe(422);
      const offending = body.modsOrder.find((modId) => modId !== modA.id) ?? foreignMod.id;
      expect(response.json().error.code).toBe("UNPROCESSABLE_CONTENT");
      expect(response.json().error.message).toContain(offending);
    }
  });

  it("answers 422 for a selected id that is not one of the mod's in-game ids", async () => {
    const id = await seedModpack({ mods: [modA] });
    const response = await call("PUT", `/modpacks/${id}/export-configuration`, owner, {
      modsOrder: [modA.id],
      modConfig: { [modA.id]: { selectedPlatformModIds: ["ModA", "ModB"] } },
    });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.message).toContain('"ModB"');
  });

  it("answers 400 with the issues for a repeated mod id", async () => {
    const id = await seedModpack({ mods: [modA] });
    const response = await call("PUT", `/modpacks/${id}/export-configuration`, owner, {
      modsOrder: [modA.id, modA.id],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.issues).toEqual([{ path: "modsOrder", message: "Mod ids must not repeat" }]);
  });

  it("lets a member holding configure save, refuses a reader, and lets a reader read", async () => {
    const id = await seedModpack({ mods: [modA, modB] });
    const body = { modsOrder: [modB.id, modA.id] };
    const byConfigurer = await call("PUT", `/modpacks/${id}/export-configuration`, configurer, body);
    expect(byConfigurer.statusCode, byConfigurer.body).toBe(200);
    const byReader = await call("PUT", `/modpacks/${id}/export-configuration`, reader, body);
    expect(byReader.statusCode).toBe(403);
    expect(byReader.json()).toEqual(ACCESS_DENIED);
    const read = await call("GET", `/modpacks/${id}/export-configuration`, reader);
    expect(read.statusCode).toBe(200);
    expect(read.json().modsOrder).toEqual([modB.id, modA.id]);
    const byStranger = await call("GET", `/modpacks/${id}/export-configuration`, stranger);
    expect(byStranger.statusCode).toBe(403);
    const { db } = service.runtime.database;
    const row = await db
      .selectFrom("exportConfigurations")
      .select("updatedBy")
      .where("modpackId", "=", id)
      .executeTakeFirstOrThrow();
    expect(row.updatedBy).toBe(configurer.userId);
  });
});

describe("server file", () => {
  let modpackId: string;

  beforeAll(async () => {
    modpackId = await seedModpack({ name: "Knox Country: Survival!", mods: [modA, modB, modC] });
    const saved = await call("PUT", `/modpacks/${modpackId}/export-configuration`, owner, {
      modsOrder: [modC.id, modA.id, modB.id],
      modConfig: {
        [modA.id]: { selectedPlatformModIds: ["ModA"] },
        [modB.id]: { selectedPlatformModIds: [] },
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
  });

  it("queues a file, reports it completed and serves it in the configured order (41x)", async () => {
    const response = await call("POST", `/modpacks/${modpackId}/server-file`, owner, { version: "41x" });
    expect(response.statusCode, response.body).toBe(202);
    const { exportId, status } = response.json();
    expect(status).toBe("pending");
    expect(response.json()).toEqual({ exportId, status: "pending" });

    const done = await waitForExport(service, owner, exportId);
    expect(done).toMatchObject({
      exportId,
      modpackId,
      version: "41x",
      status: "completed",
      fileName: "knox-country-survival-41x.ini",
      downloadUrl: `${service.runtime.config.publicUrl}/modpacks/export/${exportId}/download`,
      error: null,
    });
    expect(done.finishedAt).toEqual(expect.any(String));

    const download = await call("GET", `/modpacks/export/${exportId}/download`, owner);
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(download.headers["content-disposition"]).toBe("attachment; filename=knox-country-survival-41x.ini");
    expect(download.headers["cache-control"]).toBe("private, no-store");
    const lines = download.body.split("\n");
    expect(lines).toContain("Mods=ModC;ModA");
    expect(lines).toContain(`WorkshopItems=${modC.workshopId};${modA.workshopId}`);
    expect(lines).toContain("Map=CMap;AMap;Muldraugh, KY");
    expect(download.body).not.toContain("ModA_extra");
    expect(download.body).not.toContain("ModB");
    expect(lines[0]).toMatch(/^# /);
  });

  it("names the file after a non-ASCII modpack name with filename* (RFC 6266), the slug as filename", async () => {
    const id = await seedModpack({ name: "Зомби: Выживание", mods: [modA] });
    const exportId = await requestFile(service, owner, id, "41x");
    expect((await waitForExport(service, owner, exportId)).status).toBe("completed");
    const download = await call("GET", `/modpacks/export/${exportId}/download`, owner);
    expect(download.statusCode).toBe(200);
    // A reader of RFC 6266 takes `filename*` over the ASCII `filename`.
    const disposition = parseDisposition(String(download.headers["content-disposition"]));
    expect(disposition.type).toBe("attachment");
    expect(disposition.parameters.filename).toBe("Зомби_ Выживание-41x.ini");
    expect(download.headers["content-disposition"]).toMatch(
      /^attachment; filename=[\x21-\x7e]+-41x\.ini; filename\*=UTF-8''/,
    );
  });

  it("prefixes the in-game ids with a backslash for 42x", async () => {
    const exportId = await requestFile(service, owner, modpackId, "42x");
    expect((await waitForExport(service, owner, exportId)).status).toBe("completed");
    const download = await call("GET", `/modpacks/export/${exportId}/download`, owner);
    expect(download.statusCode).toBe(200);
    expect(download.headers["content-disposition"]).toBe("attachment; filename=knox-country-survival-42x.ini");
    const lines = download.body.split("\n");
    expect(lines).toContain("Mods=\\ModC;\\ModA");
    expect(lines).toContain(`WorkshopItems=${modC.workshopId};${modA.workshopId}`);
    expect(lines).toContain("Map=CMap;AMap;Muldraugh, KY");
  });

  it("answers 409 while the file is not ready, and says why when it failed", async () => {
    // Its own modpack: a pending export with no job would answer the later identical requests.
    const modpackId = await seedModpack({ mods: [modA] });
    const pending = await insertExport(modpackId, owner, { status: "pending" });
    const notReady = await call("GET", `/modpacks/export/${pending}/download`, owner);
    expect(notReady.statusCode).toBe(409);
    expect(notReady.json()).toEqual({ error: { message: "The file is not ready yet", code: "CONFLICT" } });
    const status = await call("GET", `/modpacks/export/${pending}`, owner);
    expect(status.json()).toMatchObject({ status: "pending", downloadUrl: null, fileName: null });

    const failed = await insertExport(modpackId, owner, { status: "failed", error: "the modpack has no mods" });
    const failedDownload = await call("GET", `/modpacks/export/${failed}/download`, owner);
    expect(failedDownload.statusCode).toBe(409);
    expect(failedDownload.json().error.message).toBe("The file could not be generated: the modpack has no mods");
  });

  it("answers 404 for an unknown export, 400 for a malformed id and 401 without credentials", async () => {
    const unknown = await call("GET", `/modpacks/export/${UNKNOWN_ID}/download`, owner);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { message: "Export not found", code: "NOT_FOUND" } });
    const unknownStatus = await call("GET", `/modpacks/export/${UNKNOWN_ID}`, owner);
    expect(unknownStatus.statusCode).toBe(404);

    const malformed = await call("GET", "/modpacks/export/not-a-uuid/download", owner);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.issues).toEqual([{ path: "exportId", message: "Must be a UUID" }]);

    const anonymous = await call("GET", `/modpacks/export/${UNKNOWN_ID}/download`, null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).toBe(JSON.stringify({ message: "Unauthorized" }));
  });

  it("refuses a stranger on a private modpack and serves members", async () => {
    const exportId = await requestFile(service, owner, modpackId, "41x");
    await waitForExport(service, owner, exportId);
    const byStranger = await call("GET", `/modpacks/export/${exportId}/download`, stranger);
    expect(byStranger.statusCode).toBe(403);
    expect(byStranger.json()).toEqual(ACCESS_DENIED);
    const strangerStatus = await call("GET", `/modpacks/export/${exportId}`, stranger);
    expect(strangerStatus.statusCode).toBe(403);
    for (const member of [reader, configurer]) {
      const download = await call("GET", `/modpacks/export/${exportId}/download`, member);
      expect(download.statusCode).toBe(200);
    }
    const strangerRequest = await call("POST", `/modpacks/${modpackId}/server-file`, stranger, { version: "41x" });
    expect(strangerRequest.statusCode).toBe(403);
  });

  it("lets anyone signed in download from a public modpack", async () => {
    const publicId = await seedModpack({ isPublic: true, mods: [modD] });
    const exportId = await requestFile(service, stranger, publicId, "41x");
    await waitForExport(service, stranger, exportId);
    const download = await call("GET", `/modpacks/export/${exportId}/download`, await signIn(service));
    expect(download.statusCode).toBe(200);
    expect(download.body.split("\n")).toContain("Mods=ModD");
  });

  it("still serves the requester after they were removed from the modpack", async () => {
    const requester = await signIn(service, { name: "Leaving member" });
    const id = await seedModpack({ mods: [modA] });
    await service.runtime.database.db
      .insertInto("modpackMembers")
      .values({ modpackId: id, userId: requester.userId, permission: ["read"] })
      .execute();
    const exportId = await requestFile(service, requester, id, "41x");
    await waitForExport(service, requester, exportId);
    const removed = await call("DELETE", `/modpacks/${id}/members/${requester.userId}`, owner);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await call("GET", `/modpacks/${id}`, requester)).statusCode).toBe(403);
    const download = await call("GET", `/modpacks/export/${exportId}/download`, requester);
    expect(download.statusCode).toBe(200);
    expect((await call("GET", `/modpacks/export/${exportId}`, requester)).statusCode).toBe(200);
  });

  it("notifies the requester when generation starts and when the file is ready", async () => {
    const requester = await signIn(service, { name: "Notified" });
    const id = await seedModpack({ isPublic: true, mods: [modA] });
    const exportId = await requestFile(service, requester, id, "42x");
    await waitForExport(service, requester, exportId);
    const notifications = await notificationsOf(service, requester);
    const started = notifications.find((n) => n.title === "Server file generation started");
    const ready = notifications.find((n) => n.title === "Server file ready");
    expect(started?.type).toBe("info");
    expect(ready?.type).toBe("success");
    for (const notification of [started, ready]) {
      expect(JSON.parse(notification?.metadata ?? "{}")).toEqual({ modpackId: id, exportId, version: "42x" });
    }
  });

  it("does the work once: a repeated job for a completed export is skipped", async () => {
    const requester = await signIn(service, { name: "Repeat" });
    const id = await seedModpack({ isPublic: true, mods: [modA] });
    const exportId = await requestFile(service, requester, id, "41x");
    await waitForExport(service, requester, exportId);
    const job = exportJob({ db: service.runtime.database.db });
    const result = await job.handle(
      [
        {
          id: "repeat",
          name: job.queue,
          data: { exportId },
          expireInSeconds: 60,
          heartbeatSeconds: null,
          retryCount: 1,
          signal: new AbortController().signal,
        },
      ],
      service.runtime.jobs,
    );
    expect(result).toEqual([{ id: "repeat", status: "completed", output: { exportId, skipped: true } }]);
    const ready = (await notificationsOf(service, requester)).filter((n) => n.title === "Server file ready");
    expect(ready).toHaveLength(1);
  });

  it("fails the export and notifies the requester only when the last attempt fails", async () => {
    const requester = await signIn(service, { name: "Broken" });
    const id = await seedModpack({ isPublic: true, mods: [modA] });
    const exportId = await insertExport(id, requester, { status: "pending" });
    const { db } = service.runtime.database;
    // A database on which loading the modpack fails, as a rendering failure would.
    const broken = new Proxy(db, {
      get(target, property) {
        if (property === "selectFrom") {
          return (table: Parameters<typeof db.selectFrom>[0]) => {
            if (table === "modpacks") throw new Error("modpack unreadable");
            return target.selectFrom(table);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const job = exportJob({ db: broken });
    const attempt = (retryCount: number) =>
      job.handle(
        [
          {
            id: `attempt-${retryCount}`,
            name: job.queue,
            data: { exportId },
            expireInSeconds: 60,
            heartbeatSeconds: null,
            retryCount,
            signal: new AbortController().signal,
          },
        ],
        service.runtime.jobs,
      );
    const failure = (retryCount: number) => [
      { id: `attempt-${retryCount}`, status: "failed", output: { message: "modpack unreadable" } },
    ];
    await expect(attempt(0)).resolves.toEqual(failure(0));
    expect((await call("GET", `/modpacks/export/${exportId}`, requester)).json().status).toBe("running");
    expect((await notificationsOf(service, requester)).filter((n) => n.type === "error")).toHaveLength(0);

    await expect(attempt(2)).resolves.toEqual(failure(2));
    const status = (await call("GET", `/modpacks/export/${exportId}`, requester)).json();
    expect(status).toMatchObject({ status: "failed", error: "generation failed after 3 attempts" });
    const errors = (await notificationsOf(service, requester)).filter(
      (n) => n.title === "Server file generation failed",
    );
    expect(errors.map((n) => n.type)).toEqual(["error"]);
  });

  it("marks an export the job gave up on failed and notifies the requester, once", async () => {
    const requester = await signIn(service, { name: "Unlucky" });
    const id = await seedModpack({ isPublic: true, mods: [modA] });
    const exportId = await insertExport(id, requester, { status: "pending" });
    const { jobs } = service.runtime;
    await jobs.send(EXPORT_DEAD_LETTER_QUEUE, { exportId });
    const failed = await waitForExport(service, requester, exportId);
    expect(failed.status).toBe("failed");
    expect(failed.error).toEqual(expect.any(String));
    expect(failed.downloadUrl).toBeNull();

    const download = await call("GET", `/modpacks/export/${exportId}/download`, requester);
    expect(download.statusCode).toBe(409);
    expect(download.json().error.message).toBe(`The file could not be generated: ${failed.error}`);

    // A second dead letter for the same export changes nothing.
    const again = await jobs.send(EXPORT_DEAD_LETTER_QUEUE, { exportId });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const job = again ? await jobs.boss.getJobById(EXPORT_DEAD_LETTER_QUEUE, again) : null;
      if (job?.state === "completed" || Date.now() > deadline) break;
      await sleep(20);
    }
    const errors = (await notificationsOf(service, requester)).filter(
      (n) => n.title === "Server file generation failed",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.type).toBe("error");
    expect(JSON.parse(errors[0]?.metadata ?? "{}")).toEqual({ modpackId: id, exportId, version: "41x" });
  });

  it("documents the download route in the OpenAPI document", async () => {
    const response = await call("GET", "/openapi.json", null);
    const operation = response.json().paths["/modpacks/export/{exportId}/download"].get;
    expect(operation.operationId).toBe("downloadServerFile");
    expect(operation.tags).toEqual(["Server files"]);
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404", "409"]),
    );
    expect(operation.responses["200"].content["text/plain"]).toBeDefined();
  });

  it("measures request-to-downloadable latency over 20 sequential exports", async () => {
    const id = await seedModpack({ mods: [modA, modB, modC, modD] });
    const timings: number[] = [];
    for (let index = 0; index < 20; index += 1) {
      const started = performance.now();
      const exportId = await requestFile(service, owner, id, index % 2 === 0 ? "41x" : "42x");
      const done = await waitForExport(service, owner, exportId);
      timings.push(performance.now() - started);
      expect(done.status).toBe("completed");
    }
    const sorted = [...timings].sort((a, b) => a - b);
    const median = ((sorted[9] ?? 0) + (sorted[10] ?? 0)) / 2;
    const p95 = sorted[Math.ceil(0.95 * sorted.length) - 1] ?? 0;
    const kind = service.database.url ? "postgres" : "embedded";
    console.log(`server file latency: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (${kind})`);
    expect(timings).toHaveLength(20);
  });
});
