import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, heldCalls, startFakeSteam } from "./fixtures/steam-api.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { createModpack, importNotifications, requestImport, startImport, waitForImport } from "./support/modpacks.js";
import { addMembers, insertImport, linkedWorkshopIds } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const DETAILS = "ISteamRemoteStorage/GetPublishedFileDetails/v1";
const COLLECTIONS = "ISteamRemoteStorage/GetCollectionDetails/v1";

let steam: FakeSteam;
let service: TestService;
let owner: SignedIn;

beforeAll(async () => {
  steam = await startFakeSteam();
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url } });
  owner = await signIn(service, { name: "Importer" });
});
afterAll(async () => {
  await service.stop();
  await steam.close();
});
afterEach(() => steam.reset());

/** A collection with two mods (one requiring another item), a nested collection, another game's item and a missing item. */
function seedMixedCollection() {
  for (const id of ["101", "102", "201", "900"]) steam.items.set(id, fakeItem(id));
  steam.items.set("102", fakeItem("102", { children: ["900"] }));
  steam.items.set("300", fakeItem("300", { consumerAppId: 4000 }));
  steam.collections.set("5000", ["101", "102", "5001", "300", "404"]);
  steam.collections.set("5001", ["201", "5000"]);
}

describe("import", () => {
  it("imports a mixed collection with exact counts, links, failures and notifications", async () => {
    seedMixedCollection();
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    const started = await requestImport(service, owner, modpackId, "5000");
    expect(started.statusCode).toBe(202);
    expect(started.json()).toEqual({ message: "Import started", status: "pending", importId: expect.any(String) });

    const status = await waitForImport(service, owner, modpackId);
    expect(status).toMatchObject({
      importId: started.json().importId,
      status: "completed",
      modsImported: 3,
      modsFailed: 2,
      progress: { done: 5 - 0, total: 5 },
      error: null,
    });
    expect(status.failures).toEqual(
      expect.arrayContaining([
        { workshopId: "300", reason: "wrong_game" },
        { workshopId: "404", reason: "missing" },
      ]),
    );
    expect(status.startedAt).toBeTruthy();
    expect(status.finishedAt).toBeTruthy();
    expect(await linkedWorkshopIds(service, modpackId)).toEqual(["101", "102", "201"]);

    const mine = await importNotifications(service, owner, started.json().importId);
    expect(mine.map((item) => [item.title, item.type])).toEqual([
      ["Import finished with failures", "warning"],
      ["Import started", "info"],
    ]);
    const finished = mine[0]?.metadata ?? {};
    expect(finished).toMatchObject({ modsImported: 3, modsFailed: 2 });
    expect(finished.failures).toHaveLength(2);
  });

  it("imports the same collection again without duplicating links", async () => {
    seedMixedCollection();
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    await startImport(service, owner, modpackId, "5000");
    await waitForImport(service, owner, modpackId);
    const again = await requestImport(service, owner, modpackId, "5000");
    expect(again.statusCode).toBe(202);
    const status = await waitForImport(service, owner, modpackId);
    expect(status.modsImported).toBe(3);
    const links = await service.runtime.database.db
      .selectFrom("modpackMods")
      .select(["modId", "addedBy"])
      .where("modpackId", "=", modpackId)
      .execute();
    expect(links).toHaveLength(3);
    // Every link, the requirement's too, names who imported it.
    expect(links.map((link) => link.addedBy)).toEqual([owner.userId, owner.userId, owner.userId]);
  });

  it("fails with a clear error and notification when the collection cannot be read", async () => {
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    await startImport(service, owner, modpackId, "7777");
    const status = await waitForImport(service, owner, modpackId);
    expect(status.status).toBe("failed");
    expect(status.error).toMatch(/does not exist|private/);
    const notifications = await service.app.inject({
      method: "GET",
      url: "/notifications?unreadOnly=true&limit=5",
      headers: owner.headers,
    });
    expect(notifications.json().notifications[0]).toMatchObject({ title: "Import failed", type: "error" });
  });

  it("answers 409 while an import of the modpack is pending or running", async () => {
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    await insertImport(service, { modpackId, requestedBy: owner.userId, collectionId: "1", status: "running" });
    const response = await requestImport(service, owner, modpackId, "5000");
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      error: { message: "An import is already running for this modpack", code: "CONFLICT" },
    });
  });

  it("answers 404 for the status of a modpack that never imported, and checks the body", async () => {
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    const status = await service.app.inject({
      method: "GET",
      url: `/modpacks/${modpackId}/import/status`,
      headers: owner.headers,
    });
    expect(status.statusCode).toBe(404);
    const bad = await service.app.inject({
      method: "POST",
      url: `/modpacks/${modpackId}/import`,
      headers: owner.headers,
      payload: { platformUrl: "https://example.com/collection" },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.issues[0].path).toBe("platformUrl");
  });

  it("lets a member holding `import` start one, and refuses a member without it", async () => {
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    const importer = await signIn(service);
    const reader = await signIn(service);
    await addMembers(service, modpackId, [
      { userId: importer.userId, permission: ["read", "import"] },
      { userId: reader.userId, permission: ["read"] },
    ]);
    steam.items.set("101", fakeItem("101"));
    steam.collections.set("6000", ["101"]);
    const refused = await requestImport(service, reader, modpackId, "6000");
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: { message: "Access denied", code: "FORBIDDEN" } });
    const allowed = await requestImport(service, importer, modpackId, "6000");
    expect(allowed.statusCode).toBe(202);
    const status = await waitForImport(service, reader, modpackId);
    expect(status.modsImported).toBe(1);
  });

  it("imports 1,200 items with at most 13 workshop calls", async () => {
    const ids = Array.from({ length: 1200 }, (_, index) => String(100_000 + index));
    for (const id of ids) steam.items.set(id, fakeItem(id));
    steam.collections.set("8000", ids);
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    const startedAt = performance.now();
    await startImport(service, owner, modpackId, "8000");
    const status = await waitForImport(service, owner, modpackId, 60_000);
    const seconds = (performance.now() - startedAt) / 1000;
    expect(status).toMatchObject({ status: "completed", modsImported: 1200, modsFailed: 0 });
    const details = steam.calls.filter((call) => call.endpoint === DETAILS).length;
    const collections = steam.calls.filter((call) => call.endpoint === COLLECTIONS).length;
    expect(details + collections).toBeLessThanOrEqual(13);
    expect((await linkedWorkshopIds(service, modpackId)).length).toBe(1200);
    process.stdout.write(
      `import of 1,200 items: ${seconds.toFixed(2)} s, ${details} detail calls + ${collections} collection call(s)\n`,
    );
  }, 120_000);

  it("rolls a failing workshop into failed items, not a stuck worker", async () => {
    steam.items.set("101", fakeItem("101"));
    steam.collections.set("6100", ["101"]);
    const modpackId = await createModpack(service, owner, { name: "Import target" });
    steam.failNext(1, "500");
    await startImport(service, owner, modpackId, "6100");
    const status = await waitForImport(service, owner, modpackId);
    expect(status).toMatchObject({ status: "completed", modsImported: 1 });
  });
});

describe("import with a Steam API key", () => {
  it("follows required items and counts them as imported", async () => {
    const keyed = await startTestService({ env: { WORKSHOP_API_URL: steam.url, STEAM_API_KEY: "test-key-123" } });
    try {
      const user = await signIn(keyed);
      seedMixedCollection();
      const modpackId = await createModpack(keyed, user, { name: "Import target" });
      await startImport(keyed, user, modpackId, "5000");
      const status = await waitForImport(keyed, user, modpackId);
      expect(status).toMatchObject({ status: "completed", modsImported: 4, modsFailed: 2 });
      expect(await linkedWorkshopIds(keyed, modpackId)).toEqual(["101", "102", "201", "900"]);
    } finally {
      await keyed.stop();
    }
  });
});

describe("a worker killed mid-import", () => {
  let database: TestDatabase;
  let dataDir: string | undefined;

  beforeAll(async () => {
    if (!process.env.DATABASE_URL) dataDir = await mkdtemp(path.join(tmpdir(), "mcs-import-kill-"));
    database = await createTestDatabase(dataDir ? { dataDir } : {});
  });
  afterAll(async () => {
    await database.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("is retried by the next process and finishes with exact counts and no duplicate links", async () => {
    const ids = Array.from({ length: 350 }, (_, index) => String(200_000 + index));
    for (const id of ids) steam.items.set(id, fakeItem(id));
    steam.collections.set("9000", ids);

    // One detail batch at a time, so the worker dies with exactly two batches stored.
    const first = await startTestService({ database, env: { WORKSHOP_API_URL: steam.url, IMPORT_READ_AHEAD: "1" } });
    const user = await signIn(first);
    const modpackId = await createModpack(first, user, { name: "Import target" });
    // The collection and two detail batches are answered; the third batch is held while the worker dies.
    steam.holdAfter(3);
    await startImport(first, user, modpackId, "9000");
    await heldCalls(steam);
    expect(steam.held()).toBe(1);
    expect((await linkedWorkshopIds(first, modpackId)).length).toBe(200);
    await first.runtime.jobs.stop({ graceful: false });
    await first.stop();
    steam.release();

    const second = await startTestService({ database, env: { WORKSHOP_API_URL: steam.url } });
    try {
      const again = await signIn(second);
      await addMembers(second, modpackId, [{ userId: again.userId, permission: ["read"] }]);
      const status = await waitForImport(second, again, modpackId, 60_000);
      expect(status).toMatchObject({ status: "completed", modsImported: 350, modsFailed: 0 });
      expect(await linkedWorkshopIds(second, modpackId)).toHaveLength(350);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
