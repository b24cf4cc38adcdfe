import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../dev/webhook-receiver.js";
import { MOD_UPDATE_QUEUE } from "../src/services/ports.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { notificationsOf } from "./support/modpacks.js";
import { addMembers, insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { waitFor } from "./support/wait.js";
import { addWebhook } from "./support/webhooks.js";

let steam: FakeSteam;
let service: TestService;
let receiver: WebhookReceiver;

beforeAll(async () => {
  steam = await startFakeSteam();
  receiver = await startWebhookReceiver();
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
});
afterAll(async () => {
  await service.stop();
  await receiver.close();
  await steam.close();
});

/** Adds a webhook on its own receiver path to a modpack, as its owner. */
async function hookOn(owner: SignedIn, modpackId: string, path: string, events?: string[]) {
  await addWebhook(service, owner, modpackId, { url: receiver.url(path), ...(events ? { events } : {}) });
}

/** Runs the update job through its endpoint and answers the job's output. */
async function runUpdate(admin: SignedIn): Promise<unknown> {
  const response = await service.app.inject({ method: "POST", url: "/mods/update-all", headers: admin.headers });
  expect(response.statusCode).toBe(202);
  const { jobId } = response.json();
  expect(jobId).toEqual(expect.any(String));
  const job = await waitFor(
    "the mod update",
    async () => (await service.runtime.jobs.boss.findJobs(MOD_UPDATE_QUEUE, { id: jobId }))[0],
    (found) => found?.state === "completed" || found?.state === "failed",
  );
  expect(job?.state).toBe("completed");
  return job?.output;
}

describe("the mod update job", () => {
  it("notifies each affected user once per run, grouping updated, breaking and removed mods", async () => {
    const { db } = service.runtime.database;
    const old = new Date("2023-01-01T00:00:00Z");
    const seed = (workshopId: string, platformModIds: string[]) =>
      insertMod(service, { workshopId, platformModIds, timeUpdated: old });
    const updated = await seed("1001", ["Updated"]);
    const breaking = await seed("1002", ["Breaking"]);
    const removed = await seed("1003", ["Removed"]);
    const unchanged = await seed("1004", ["Same"]);
    await seed("1005", ["Nobody"]);

    // The workshop now: 1001 has a newer update, 1002 renamed its in-game id, 1003 is gone.
    steam.items.set(
      "1001",
      fakeItem("1001", { description: "Workshop ID: 1001\nMod ID: Updated", timeUpdated: 1_800_000_000 }),
    );
    steam.items.set(
      "1002",
      fakeItem("1002", { description: "Workshop ID: 1002\nMod ID: Breaking2", timeUpdated: old.getTime() / 1000 }),
    );
    steam.items.set(
      "1004",
      fakeItem("1004", { description: "Workshop ID: 1004\nMod ID: Same", timeUpdated: old.getTime() / 1000 }),
    );
    steam.items.set(
      "1005",
      fakeItem("1005", { description: "Workshop ID: 1005\nMod ID: Nobody", timeUpdated: 1_800_000_000 }),
    );

    const owner = await signIn(service, { name: "Owner" });
    const member = await signIn(service, { name: "Member" });
    const bystander = await signIn(service, { name: "Bystander" });
    const admin = await signIn(service, { name: "Admin", role: "admin" });
    const pack = (name: string, ownerId: string, modIds: string[]) => insertModpack(service, { name, ownerId, modIds });
    const first = await pack("First", owner.userId, [updated.id, breaking.id]);
    const second = await pack("Second", owner.userId, [removed.id, unchanged.id]);
    const third = await pack("Third", bystander.userId, [unchanged.id]);
    await addMembers(service, first, [{ userId: member.userId, permission: ["read"] }]);

    await hookOn(owner, first, "/first");
    await hookOn(owner, second, "/second");
    await hookOn(bystander, third, "/third");
    // Subscribed to other events only: hears nothing of the run.
    await hookOn(owner, second, "/second-exports", ["export.ready"]);
    const archived = await pack("Archived", owner.userId, [updated.id]);
    await hookOn(owner, archived, "/archived");
    await service.runtime.database.db
      .updateTable("modpacks")
      .set({ isActive: false })
      .where("id", "=", archived)
      .execute();

    // One notification per user, the problem the run caused folded in; one event per modpack touched.
    expect(await runUpdate(admin)).toEqual({ checked: 5, changed: 4, notified: 2, delivered: 2 });

    const allOwnerNotes = await notificationsOf(service, owner);
    expect(allOwnerNotes.map((note) => [note.title, note.type])).toEqual([
      ["3 mods in your modpacks changed (a new problem)", "error"],
    ]);
    expect(allOwnerNotes[0]?.content).toContain('In "Second": ');
    const ownerMeta = JSON.parse(allOwnerNotes[0]?.metadata ?? "{}");
    expect(ownerMeta.problems).toEqual([
      { modpackId: second, findings: [expect.objectContaining({ code: "unavailable", workshopId: "1003" })] },
    ]);
    expect(
      ownerMeta.mods.map((mod: { workshopId: string; change: string }) => [mod.workshopId, mod.change]).sort(),
    ).toEqual([
      ["1001", "updated"],
      ["1002", "breaking"],
      ["1003", "removed"],
    ]);
    expect(ownerMeta.modpacks.map((modpack: { name: string }) => modpack.name).sort()).toEqual(["First", "Second"]);

    const memberNotes = await notificationsOf(service, member);
    expect(memberNotes).toHaveLength(1);
    expect(JSON.parse(memberNotes[0]?.metadata ?? "{}").mods).toHaveLength(2);
    expect(await notificationsOf(service, bystander)).toHaveLength(0);

    const mods = await db
      .selectFrom("mods")
      .select(["workshopId", "isActive", "platformModIds", "timeUpdated"])
      .execute();
    const byId = new Map(mods.map((mod) => [mod.workshopId, mod]));
    expect(byId.get("1003")?.isActive).toBe(false);
    expect(byId.get("1002")?.platformModIds).toEqual(["Breaking2"]);
    expect(byId.get("1001")?.timeUpdated?.getTime()).toBe(1_800_000_000_000);

    const events = await waitFor(
      "the two events",
      async () => receiver.received(),
      (list) => list.length >= 2,
    );
    expect(events.map((event) => event.path).sort()).toEqual(["/first", "/second"]);
    const bodyOf = (path: string) => JSON.parse(events.find((event) => event.path === path)!.body);
    expect(bodyOf("/first")).toEqual({
      type: "mods.updated",
      timestamp: expect.any(String),
      data: {
        modpack: { id: first, name: "First" },
        updated: {
          items: expect.arrayContaining([
            {
              modId: updated.id,
              workshopId: "1001",
              name: expect.any(String),
              timeUpdated: "2027-01-15T08:00:00.000Z",
            },
            expect.objectContaining({ modId: breaking.id, workshopId: "1002" }),
          ]),
          total: 2,
        },
        removed: { items: [], total: 0 },
        findings: { items: [], total: 0 },
      },
    });
    expect(bodyOf("/second").data).toEqual({
      modpack: { id: second, name: "Second" },
      updated: { items: [], total: 0 },
      removed: { items: [expect.objectContaining({ modId: removed.id, workshopId: "1003" })], total: 1 },
      findings: { items: [expect.objectContaining({ code: "unavailable", workshopId: "1003" })], total: 1 },
    });

    // A second run finds nothing new: no notification, no event.
    expect(await runUpdate(admin)).toEqual({ checked: 5, changed: 0, notified: 0, delivered: 0 });
    expect(await notificationsOf(service, owner)).toHaveLength(1);
    const settled = await waitFor(
      "the deliveries settled",
      () => service.runtime.database.db.selectFrom("webhookDeliveries").select("status").execute(),
      (rows) => rows.every((row) => row.status !== "pending"),
    );
    expect(settled.map((row) => row.status)).toEqual(["succeeded", "succeeded"]);
    expect(receiver.received()).toHaveLength(2);
  });

  it("tells of a mod that stops naming Build 42 ids, reading each build's own list", async () => {
    // Before: no per-build lists (both builds load its one id). After the workshop change: ids for
    // Build 41 only, so the new problem is the 42x check's, which says so.
    const mod = await insertMod(service, {
      workshopId: "1201",
      platformModIds: ["Shared"],
      timeUpdated: new Date("2023-01-01T00:00:00Z"),
    });
    steam.items.set(
      "1201",
      fakeItem("1201", { description: "Workshop ID: 1201\nMod ID (b41): Legacy", timeUpdated: 1_800_000_000 }),
    );
    const owner = await signIn(service, { name: "Per-build owner" });
    const admin = await signIn(service, { name: "Per-build admin", role: "admin" });
    const modpackId = await insertModpack(service, { name: "Per build", ownerId: owner.userId, modIds: [mod.id] });

    await runUpdate(admin);

    const notes = await notificationsOf(service, owner);
    expect(notes).toHaveLength(1);
    expect(JSON.parse(notes[0]?.metadata ?? "{}").problems).toEqual([
      {
        modpackId,
        findings: [
          expect.objectContaining({
            code: "no-ids",
            workshopId: "1201",
            message: expect.stringContaining("for Build 42"),
          }),
        ],
      },
    ]);
  });

  it("queues one check at a time: a second request while one waits reuses it", async () => {
    const admin = await signIn(service, { role: "admin" });
    await service.runtime.jobs.boss.offWork(MOD_UPDATE_QUEUE, { wait: true });
    const first = await service.app.inject({ method: "POST", url: "/mods/update-all", headers: admin.headers });
    const second = await service.app.inject({ method: "POST", url: "/mods/update-all", headers: admin.headers });
    expect(first.statusCode).toBe(202);
    expect(first.json().jobId).toEqual(expect.any(String));
    expect(second.statusCode).toBe(202);
    expect(second.json().jobId).toBeNull();
    expect(second.json().message).toMatch(/already queued/i);
  });
});
