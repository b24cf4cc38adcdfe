import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MOD_UPDATE_QUEUE } from "../src/services/ports.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { notificationsOf } from "./support/modpacks.js";
import { addMembers, insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

let steam: FakeSteam;
let service: TestService;

beforeAll(async () => {
  steam = await startFakeSteam();
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url } });
});
afterAll(async () => {
  await service.stop();
  await steam.close();
});

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
    await pack("Second", owner.userId, [removed.id, unchanged.id]);
    await pack("Third", bystander.userId, [unchanged.id]);
    await addMembers(service, first, [{ userId: member.userId, permission: ["read"] }]);

    const response = await service.app.inject({ method: "POST", url: "/mods/update-all", headers: admin.headers });
    expect(response.statusCode).toBe(202);
    const { jobId } = response.json();
    expect(jobId).toEqual(expect.any(String));
    const deadline = Date.now() + 20_000;
    let state: string | undefined;
    let output: unknown;
    while (Date.now() < deadline) {
      const [job] = await service.runtime.jobs.boss.findJobs(MOD_UPDATE_QUEUE, { id: jobId });
      state = job?.state;
      output = job?.output;
      if (state === "completed" || state === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(state).toBe("completed");
    // Two change summaries, and the owner of "Second" hears that the removal broke it.
    expect(output).toEqual({ checked: 5, changed: 4, notified: 3 });

    const allOwnerNotes = await notificationsOf(service, owner);
    expect(allOwnerNotes.map((note) => [note.title, note.type]).sort()).toEqual([
      ["3 mods in your modpacks changed", "warning"],
      ['A new problem in "Second"', "error"],
    ]);
    const ownerNotes = allOwnerNotes.filter((note) => note.type === "warning");
    const ownerMeta = JSON.parse(ownerNotes[0]?.metadata ?? "{}");
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
