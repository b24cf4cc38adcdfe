import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, heldCalls, startFakeSteam } from "./fixtures/steam-api.js";
import { createModpack, importNotifications, startImport, waitForImport } from "./support/modpacks.js";
import { linkedWorkshopIds } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let steam: FakeSteam;
let service: TestService;
let owner: SignedIn;

beforeAll(async () => {
  steam = await startFakeSteam();
  service = await startTestService({
    // One detail batch at a time, so a test can hold the second batch while the first is stored.
    env: { WORKSHOP_API_URL: steam.url, IMPORT_MAX_ITEMS: "250", IMPORT_MAX_DEPTH: "2", IMPORT_READ_AHEAD: "1" },
  });
  owner = await signIn(service, { name: "Owner" });
});
afterAll(async () => {
  await service.stop();
  await steam.close();
});
afterEach(() => steam.reset());

function seedItems(prefix: number, count: number): string[] {
  const ids = Array.from({ length: count }, (_, index) => String(prefix + index));
  for (const id of ids) steam.items.set(id, fakeItem(id));
  return ids;
}

describe("import bounds", () => {
  it.each([
    {
      name: "more items than allowed",
      seed: () => steam.collections.set("7000", seedItems(700_000, 251)),
      collection: "7000",
      error: "The collection holds more than 250 items.",
    },
    {
      name: "collections nested deeper than allowed",
      seed: () => {
        steam.collections.set("7100", [...seedItems(710_000, 2), "7101"]);
        steam.collections.set("7101", [...seedItems(710_100, 2), "7102"]);
        steam.collections.set("7102", seedItems(710_200, 2));
      },
      collection: "7100",
      error: "The collection nests collections more than 2 levels deep.",
    },
  ])("fails an import of $name with the reason", async ({ seed, collection, error }) => {
    seed();
    const modpackId = await createModpack(service, owner);
    const importId = await startImport(service, owner, modpackId, collection);
    const row = await waitForImport(service, owner, modpackId);
    expect(row).toMatchObject({ status: "failed", error, modsImported: 0 });
    const notes = await importNotifications(service, owner, importId);
    expect(notes.map((note) => [note.title, note.type])).toEqual([
      ["Import failed", "error"],
      ["Import started", "info"],
    ]);
    expect(notes[0]?.metadata).toMatchObject({ error });
  });

  it("imports a collection at the bounds", async () => {
    steam.collections.set("7200", [...seedItems(720_000, 200), "7201"]);
    steam.collections.set("7201", seedItems(720_500, 50));
    const modpackId = await createModpack(service, owner);
    await startImport(service, owner, modpackId, "7200");
    const row = await waitForImport(service, owner, modpackId);
    expect(row).toMatchObject({ status: "completed", modsImported: 250, modsFailed: 0 });
  });
});

describe("a running import whose requester loses the right to import", () => {
  it.each([
    {
      name: "the member is removed",
      revoke: (modpackId: string, member: SignedIn) =>
        service.app.inject({
          method: "DELETE",
          url: `/modpacks/${modpackId}/members/${member.userId}`,
          headers: owner.headers,
        }),
      error: "The import stopped: you may no longer import into this modpack.",
    },
    {
      name: "the member loses the import permission",
      revoke: (modpackId: string, member: SignedIn) =>
        service.app.inject({
          method: "PATCH",
          url: `/modpacks/${modpackId}/members/${member.userId}`,
          headers: owner.headers,
          payload: { permission: ["read"] },
        }),
      error: "The import stopped: you may no longer import into this modpack.",
    },
    {
      name: "the modpack is archived",
      revoke: (modpackId: string) =>
        service.app.inject({ method: "DELETE", url: `/modpacks/${modpackId}`, headers: owner.headers }),
      error: "The import stopped: the modpack was archived.",
    },
  ])("stops before the next batch when $name, with exact counts and a notification", async ({ revoke, error }) => {
    steam.collections.set("8000", seedItems(800_000, 240));
    const modpackId = await createModpack(service, owner);
    const member = await signIn(service, { name: "Importing member" });
    const added = await service.app.inject({
      method: "POST",
      url: `/modpacks/${modpackId}/members`,
      headers: owner.headers,
      payload: { userId: member.userId, permission: ["read", "import"] },
    });
    expect(added.statusCode).toBe(201);
    // The collection and the first batch of 100 are answered; the second batch waits.
    steam.holdAfter(2);
    const importId = await startImport(service, member, modpackId, "8000");
    await heldCalls(steam);
    expect(steam.held()).toBe(1);
    expect((await revoke(modpackId, member)).statusCode).toBe(200);
    steam.release();

    const row = await waitForImport(service, owner, modpackId);
    expect(row.importId).toBe(importId);
    // The batch already under way finishes; the third never starts.
    expect(row).toMatchObject({ status: "failed", error, modsImported: 200, modsFailed: 0 });
    expect(await linkedWorkshopIds(service, modpackId)).toHaveLength(200);
    const notes = await importNotifications(service, member, importId);
    expect(notes.map((note) => [note.title, note.type])).toEqual([
      ["Import failed", "error"],
      ["Import started", "info"],
    ]);
    expect(notes[0]?.metadata).toMatchObject({ error });
  });
});
