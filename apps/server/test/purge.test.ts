import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PURGE_QUEUE } from "../src/jobs/maintenance.js";
import { insertExports, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

async function runPurge(service: TestService): Promise<unknown> {
  const { jobs } = service.runtime;
  const id = await jobs.send(PURGE_QUEUE, {});
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const [job] = await jobs.boss.findJobs(PURGE_QUEUE, { id: id ?? "" });
    if (job?.state === "completed") return job.output;
    if (job?.state === "failed") throw new Error("the purge failed");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the purge did not finish");
}

/** Exports and notifications of several ages and states; returns their labels by id. */
async function seed(service: TestService): Promise<void> {
  const { db } = service.runtime.database;
  const user = await signIn(service);
  const modpackId = await insertModpack(service, { ownerId: user.userId, name: "Purged" });
  const exports: Array<{
    label: string;
    status: "pending" | "running" | "completed" | "failed";
    finished: Date | null;
  }> = [
    { label: "completed 31 days ago", status: "completed", finished: daysAgo(31) },
    { label: "failed 40 days ago", status: "failed", finished: daysAgo(40) },
    { label: "completed 29 days ago", status: "completed", finished: daysAgo(29) },
    { label: "pending", status: "pending", finished: null },
  ];
  await insertExports(
    service,
    exports.map((item) => ({
      modpackId,
      requestedBy: user.userId,
      status: item.status,
      fileName: item.label,
      content: item.status === "completed" ? "servertest.ini" : null,
      finishedAt: item.finished,
      createdAt: item.finished ?? new Date(),
    })),
  );
  const notifications = [
    { title: "read 91 days ago", isRead: true, updatedAt: daysAgo(91) },
    { title: "read 89 days ago", isRead: true, updatedAt: daysAgo(89) },
    { title: "unread from 200 days ago", isRead: false, updatedAt: daysAgo(200) },
  ];
  for (const item of notifications) {
    await db
      .insertInto("notifications")
      .values({
        userId: user.userId,
        title: item.title,
        content: "",
        type: "info",
        metadata: "{}",
        isRead: item.isRead,
        updatedAt: item.updatedAt,
        createdAt: item.updatedAt,
      })
      .execute();
  }
  await db
    .insertInto("modpackInvitations")
    .values(
      [
        { email: "expired@example.com", expiresAt: daysAgo(1) },
        { email: "pending@example.com", expiresAt: daysAgo(-13) },
      ].map((item) => ({ ...item, modpackId, permission: ["read"], invitedBy: user.userId })),
    )
    .execute();
  const [webhook] = await db
    .insertInto("webhooks")
    .values({
      modpackId,
      url: "https://hooks.example.com/purged",
      events: ["webhook.test"],
      format: "standard",
      secret: "sealed",
    })
    .returning("id")
    .execute();
  const deliveries = [
    { eventId: "succeeded 31 days ago", status: "succeeded" as const, createdAt: daysAgo(31) },
    { eventId: "failed 29 days ago", status: "failed" as const, createdAt: daysAgo(29) },
    { eventId: "pending from 31 days ago", status: "pending" as const, createdAt: daysAgo(31) },
  ];
  await db
    .insertInto("webhookDeliveries")
    .values(
      deliveries.map((item) => ({
        ...item,
        webhookId: webhook!.id,
        eventType: "webhook.test",
        body: "{}",
        attempt: 1,
      })),
    )
    .execute();
}

async function left(service: TestService) {
  const { db } = service.runtime.database;
  const exports = await db.selectFrom("exports").select("fileName").orderBy("fileName").execute();
  const notifications = await db.selectFrom("notifications").select("title").orderBy("title").execute();
  const invitations = await db.selectFrom("modpackInvitations").select("email").orderBy("email").execute();
  const deliveries = await db.selectFrom("webhookDeliveries").select("eventId").orderBy("eventId").execute();
  return {
    deliveries: deliveries.map((row) => row.eventId),
    exports: exports.map((row) => row.fileName),
    notifications: notifications.map((row) => row.title),
    invitations: invitations.map((row) => row.email),
  };
}

describe("the maintenance purge", () => {
  let service: TestService;
  let keeping: TestService;
  beforeAll(async () => {
    service = await startTestService();
    keeping = await startTestService({
      env: {
        PURGE_EXPORTS_AFTER_DAYS: "0",
        PURGE_READ_NOTIFICATIONS_AFTER_DAYS: "0",
        PURGE_WEBHOOK_DELIVERIES_AFTER_DAYS: "0",
      },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await keeping?.stop();
  });

  it("deletes finished exports, read notifications and settled webhook deliveries past their age (defaults 30, 90 and 30 days), and expired invitations", async () => {
    await seed(service);
    expect(await runPurge(service)).toEqual({
      exportsDeleted: 2,
      notificationsDeleted: 1,
      invitationsDeleted: 1,
      deliveriesDeleted: 1,
    });
    expect(await left(service)).toEqual({
      deliveries: ["failed 29 days ago", "pending from 31 days ago"],
      exports: ["completed 29 days ago", "pending"],
      notifications: ["read 89 days ago", "unread from 200 days ago"],
      invitations: ["pending@example.com"],
    });
  });

  it("keeps exports and notifications when the ages are 0 (expired invitations still go)", async () => {
    await seed(keeping);
    expect(await runPurge(keeping)).toEqual({
      exportsDeleted: 0,
      notificationsDeleted: 0,
      invitationsDeleted: 1,
      deliveriesDeleted: 0,
    });
    expect((await left(keeping)).exports).toHaveLength(4);
    expect((await left(keeping)).notifications).toHaveLength(3);
  });
});
