import { createHmac } from "node:crypto";
import { sql } from "kysely";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../dev/webhook-receiver.js";
import { WEBHOOK_DELIVERY_QUEUE } from "../src/services/ports.js";
import { type FakeSteam, fakeMod, startFakeSteam } from "./fixtures/steam-api.js";
import { createModpack, notificationsOf, startImport } from "./support/modpacks.js";
import { addMembers } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { waitFor } from "./support/wait.js";
import { addWebhook } from "./support/webhooks.js";

/**
 * Delivery to a receiver on loopback (private targets allowed, as for tests and LAN installs), with
 * retries due at once and the fourth an hour out, so that a pending retry can be seen and cancelled.
 */
let service: TestService;
let receiver: WebhookReceiver;
let steam: FakeSteam;
let owner: SignedIn;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  steam = await startFakeSteam();
  service = await startTestService({
    env: {
      WORKSHOP_API_URL: steam.url,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_SCHEDULE_SECONDS: "0,0,3600",
      // Long enough that a stalled receiver is still stalled when the test looks.
      WEBHOOK_TIMEOUT_MS: "60000",
      RATE_LIMIT_WEBHOOK_PER_MINUTE: "100000",
      // Long enough for a test's three changes to land in one window.
      MODPACK_CHANGED_WINDOW_SECONDS: "3",
    },
  });
  owner = await signIn(service, { name: "Owner" });
});
afterAll(async () => {
  await receiver.close();
  await service.stop();
  await steam.close();
});

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
}

let paths = 0;

/** A modpack with a webhook on its own receiver path; answers the ids, the path and the secret. */
async function webhookOn(answers: Parameters<WebhookReceiver["answer"]>[1][] = [], events?: string[]) {
  paths += 1;
  const path = `/hook-${paths}`;
  if (answers.length > 0) receiver.answer(path, ...answers);
  const modpackId = await createModpack(service, owner, { name: `Pack ${paths}` });
  const { id, secret } = await addWebhook(service, owner, modpackId, {
    url: receiver.url(path),
    ...(events ? { events } : {}),
  });
  return { modpackId, webhookId: id, path, secret, base: `/modpacks/${modpackId}/webhooks/${id}` };
}

async function sendTest(base: string): Promise<string> {
  const response = await service.app.inject({ method: "POST", url: `${base}/test`, headers: owner.headers });
  expect(response.statusCode, response.body).toBe(202);
  return response.json().deliveryId;
}

/** A webhook's delivery log, newest first, as `who` reads it on `on`. */
async function log(base: string, on = service, who = owner): Promise<Delivery[]> {
  const response = await on.app.inject({ method: "GET", url: `${base}/deliveries`, headers: who.headers });
  expect(response.statusCode).toBe(200);
  return response.json().data;
}

function waitForLog(base: string, what: string, done: (entries: Delivery[]) => boolean) {
  return waitFor(what, () => log(base), done);
}

async function isActive(webhookId: string): Promise<boolean> {
  const row = await service.runtime.database.db
    .selectFrom("webhooks")
    .select("isActive")
    .where("id", "=", webhookId)
    .executeTakeFirstOrThrow();
  return row.isActive;
}

/** The signature by the specification: base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed by the secret's bytes. */
function specSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

describe("the delivery queue", () => {
  it("takes this start's timeout, though an earlier start with the default made the queue", async () => {
    // This file's database is a copy of the run's migrated one, whose start made every queue with
    // the default 15 s timeout (an attempt's job expires a minute after its timeout).
    const queue = await service.runtime.jobs.boss.getQueue(WEBHOOK_DELIVERY_QUEUE);
    expect(queue).toMatchObject({ expireInSeconds: 120, retryLimit: 1, notify: true });
    // Updated by this start, not made by it.
    expect(queue?.updatedOn.getTime()).toBeGreaterThan(queue?.createdOn.getTime() ?? Number.POSITIVE_INFINITY);
  });
});

describe("a delivery", () => {
  it("is signed the Standard Webhooks way and carries the event envelope", async () => {
    const hook = await webhookOn();
    const deliveryId = await sendTest(hook.base);
    const [received] = await waitFor(
      "the test event",
      async () => receiver.received(hook.path),
      (list) => list.length > 0,
    );
    const headers = received!.headers as Record<string, string>;
    expect(headers["webhook-id"]).toMatch(/^msg_/);
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(300);
    expect(headers["webhook-signature"]).toBe(
      specSignature(hook.secret, headers["webhook-id"]!, headers["webhook-timestamp"]!, received!.body),
    );
    expect(new Webhook(hook.secret).verify(received!.body, headers)).toMatchObject({ type: "webhook.test" });
    expect(headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received!.body)).toEqual({
      type: "webhook.test",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: {
        modpack: { id: hook.modpackId, name: expect.any(String) },
        webhookId: hook.webhookId,
        message: expect.any(String),
      },
    });
    // A body altered on the way, or another secret, does not verify.
    expect(() => new Webhook(hook.secret).verify(`${received!.body} `, headers)).toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(received!.body, headers),
    ).toThrow();

    const entries = await waitForLog(hook.base, "a settled attempt", (list) => list[0]?.status === "succeeded");
    expect(entries).toEqual([
      expect.objectContaining({
        id: deliveryId,
        eventId: headers["webhook-id"],
        eventType: "webhook.test",
        attempt: 1,
        status: "succeeded",
        responseStatus: 200,
        error: null,
        durationMs: expect.any(Number),
      }),
    ]);
  });

  it("is retried after a 500 until it succeeds, with the same id and body, each attempt logged", async () => {
    const hook = await webhookOn([
      { status: 500, body: "database down" },
      { status: 503, body: "x".repeat(10_000) },
      { status: 204 },
    ]);
    await sendTest(hook.base);
    const entries = await waitForLog(hook.base, "the third attempt", (list) => list[0]?.status === "succeeded");
    expect(entries.map((entry) => [entry.attempt, entry.status, entry.responseStatus])).toEqual([
      [3, "succeeded", 204],
      [2, "failed", 503],
      [1, "failed", 500],
    ]);
    expect(entries[2]!.error).toBe("database down");
    // Only the first 4 KB of an answer are kept.
    expect(entries[1]!.error).toBe("x".repeat(4096));
    expect(new Set(entries.map((entry) => entry.eventId)).size).toBe(1);
    const received = receiver.received(hook.path);
    expect(received).toHaveLength(3);
    expect(new Set(received.map((delivery) => delivery.headers["webhook-id"])).size).toBe(1);
    expect(new Set(received.map((delivery) => delivery.body)).size).toBe(1);
    expect(await isActive(hook.webhookId)).toBe(true);
  });

  it.each([429, 502, 504])("waits as long as a %i's Retry-After asks before the next attempt", async (status) => {
    const hook = await webhookOn([{ status, headers: { "retry-after": "7200" } }]);
    await sendTest(hook.base);
    const [next] = await waitForLog(hook.base, "the second attempt queued", (list) => list[0]?.attempt === 2);
    expect(next!.status).toBe("pending");
    const [job] = await service.runtime.jobs.boss.findJobs(WEBHOOK_DELIVERY_QUEUE, { data: { deliveryId: next!.id } });
    const waitSeconds = (new Date(job!.startAfter).getTime() - Date.now()) / 1000;
    // The schedule alone would retry at once; the receiver asked for two hours.
    expect(waitSeconds).toBeGreaterThan(7000);
    expect(waitSeconds).toBeLessThanOrEqual(7200);
    await service.app.inject({ method: "PATCH", url: hook.base, headers: owner.headers, payload: { isActive: false } });
  });

  it("disables the webhook at once on 410, with nothing more sent", async () => {
    const hook = await webhookOn([{ status: 410, body: "gone" }]);
    await sendTest(hook.base);
    await waitFor(
      "the webhook disabled",
      () => isActive(hook.webhookId),
      (active) => !active,
    );
    const entries = await log(hook.base);
    expect(entries.map((entry) => [entry.attempt, entry.status, entry.responseStatus])).toEqual([[1, "failed", 410]]);
    expect(receiver.received(hook.path)).toHaveLength(1);
    const again = await service.app.inject({ method: "POST", url: `${hook.base}/test`, headers: owner.headers });
    expect(again.statusCode).toBe(409);
  });

  it("is not followed to a redirect", async () => {
    const target = await webhookOn();
    const hook = await webhookOn([{ status: 307, headers: { location: receiver.url(target.path) } }]);
    await sendTest(hook.base);
    await waitForLog(hook.base, "the first attempt", (list) => list.some((entry) => entry.status === "failed"));
    expect(receiver.received(target.path)).toHaveLength(0);
    await service.app.inject({ method: "PATCH", url: hook.base, headers: owner.headers, payload: { isActive: false } });
  });

  it("to a stalled receiver delays no other webhook", async () => {
    const stalled = await webhookOn(["stall"]);
    const prompt = await webhookOn();
    await sendTest(stalled.base);
    await waitFor(
      "the stalled request",
      async () => receiver.received(stalled.path),
      (list) => list.length === 1,
    );
    await sendTest(prompt.base);
    await waitForLog(prompt.base, "the other webhook's delivery", (list) => list[0]?.status === "succeeded");
    expect((await log(stalled.base))[0]?.status).toBe("pending");
  });

  it("stops when the webhook is disabled: its pending retry is cancelled, and enabling replays nothing", async () => {
    const hook = await webhookOn([{ status: 500 }]);
    await sendTest(hook.base);
    // Three failures, then the fourth attempt waits an hour.
    const pending = await waitForLog(hook.base, "the fourth attempt queued", (list) => list[0]?.attempt === 4);
    expect(pending[0]!.status).toBe("pending");
    await service.app.inject({ method: "PATCH", url: hook.base, headers: owner.headers, payload: { isActive: false } });
    const entries = await log(hook.base);
    expect(entries[0]).toMatchObject({ attempt: 4, status: "failed", error: expect.stringMatching(/^Cancelled/) });
    const enabled = await service.app.inject({
      method: "PATCH",
      url: hook.base,
      headers: owner.headers,
      payload: { isActive: true },
    });
    expect(enabled.json().isActive).toBe(true);
    expect((await log(hook.base)).map((entry) => entry.status)).not.toContain("pending");
    expect(receiver.received(hook.path)).toHaveLength(3);
  });

  it("after a day of failures disables the webhook and warns its owner", async () => {
    const hook = await webhookOn([{ status: 500 }]);
    await service.runtime.database.db
      .updateTable("webhooks")
      .set({ failingSince: sql<Date>`now() - interval '25 hours'` })
      .where("id", "=", hook.webhookId)
      .execute();
    await sendTest(hook.base);
    await waitFor(
      "the webhook disabled",
      () => isActive(hook.webhookId),
      (active) => !active,
    );
    const warnings = (await notificationsOf(service, owner)).filter((note) => note.title === "A webhook was disabled");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ type: "warning", content: expect.stringContaining(receiver.url(hook.path)) });
    expect(JSON.parse(warnings[0]!.metadata)).toEqual({ modpackId: hook.modpackId, webhookId: hook.webhookId });
    expect((await log(hook.base)).map((entry) => entry.status)).toEqual(["failed"]);
  });

  it("after a rotation is signed by the new secret and the old one", async () => {
    const hook = await webhookOn();
    const rotated = await service.app.inject({
      method: "POST",
      url: `${hook.base}/rotate-secret`,
      headers: owner.headers,
    });
    const { secret } = rotated.json();
    await sendTest(hook.base);
    const [received] = await waitFor(
      "the event",
      async () => receiver.received(hook.path),
      (list) => list.length > 0,
    );
    const headers = received!.headers as Record<string, string>;
    const signatures = headers["webhook-signature"]!.split(" ");
    expect(signatures).toEqual([
      specSignature(secret, headers["webhook-id"]!, headers["webhook-timestamp"]!, received!.body),
      specSignature(hook.secret, headers["webhook-id"]!, headers["webhook-timestamp"]!, received!.body),
    ]);
    for (const key of [secret, hook.secret])
      expect(() => new Webhook(key).verify(received!.body, headers)).not.toThrow();
  });
});

describe("the events of exports and imports", () => {
  it("sends export.ready with where to download the file, and import.finished with its counts", async () => {
    const hook = await webhookOn([], ["export.ready", "export.failed", "import.finished"]);
    const requested = await service.app.inject({
      method: "POST",
      url: `/modpacks/${hook.modpackId}/server-file`,
      headers: owner.headers,
      payload: { version: "42x" },
    });
    expect(requested.statusCode, requested.body).toBe(202);
    const { exportId } = requested.json();
    steam.items.set("6101", fakeMod("6101", { title: "Imported <b>mod</b>" }));
    steam.collections.set("6100", ["6101", "6199"]);
    const importId = await startImport(service, owner, hook.modpackId, "6100");

    const received = await waitFor(
      "both events",
      async () => receiver.received(hook.path),
      (list) => list.length >= 2,
    );
    const bodies = received.map((delivery) => JSON.parse(delivery.body));
    const modpack = { id: hook.modpackId, name: expect.any(String) };
    expect(bodies).toEqual(
      expect.arrayContaining([
        {
          type: "export.ready",
          timestamp: expect.any(String),
          data: {
            modpack,
            exportId,
            version: "42x",
            downloadPath: `/modpacks/export/${exportId}/download`,
            error: null,
          },
        },
        {
          type: "import.finished",
          timestamp: expect.any(String),
          data: { modpack, importId, status: "completed", modsImported: 1, modsFailed: 1 },
        },
      ]),
    );
    for (const delivery of received) {
      expect(() =>
        new Webhook(hook.secret).verify(delivery.body, delivery.headers as Record<string, string>),
      ).not.toThrow();
    }
  });
});

describe("modpack.changed", () => {
  it("reports the changes of one window in one event, naming who made them", async () => {
    const hook = await webhookOn([], ["modpack.changed"]);
    const editor = await signIn(service, { name: "Editor <script>" });
    await addMembers(service, hook.modpackId, [
      { userId: editor.userId, permission: ["read", "add-mod", "remove-mod"] },
    ]);
    steam.items.set("6201", fakeMod("6201", { title: "Brita's Weapon Pack" }));
    steam.items.set("6202", fakeMod("6202", { title: "Arsenal(26) GunFighter" }));
    const add = (who: SignedIn, workshopId: string) =>
      service.app.inject({
        method: "POST",
        url: `/modpacks/${hook.modpackId}/mods`,
        headers: who.headers,
        payload: { modAtribute: workshopId },
      });
    const first = await add(owner, "6201");
    expect(first.statusCode, first.body).toBe(201);
    const second = await add(editor, "6202");
    expect(second.statusCode, second.body).toBe(201);
    const removed = await service.app.inject({
      method: "DELETE",
      url: `/modpacks/${hook.modpackId}/mods/${first.json().modId}`,
      headers: editor.headers,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    // Nothing is sent before the window closes.
    expect(receiver.received(hook.path)).toHaveLength(0);

    const [event] = await waitFor(
      "the event",
      async () => receiver.received(hook.path),
      (list) => list.length > 0,
    );
    const body = JSON.parse(event!.body);
    expect(body.type).toBe("modpack.changed");
    expect(body.data.modpack).toEqual({ id: hook.modpackId, name: expect.any(String) });
    expect(body.data.changes.total).toBe(3);
    expect(
      body.data.changes.items.map((change: { kind: string; name: string; byUserId: string }) => [
        change.kind,
        change.name,
        change.byUserId,
      ]),
    ).toEqual([
      ["mod-added", "Brita's Weapon Pack", owner.userId],
      ["mod-added", "Arsenal(26) GunFighter", editor.userId],
      ["mod-removed", "Brita's Weapon Pack", editor.userId],
    ]);
    expect(body.data.by).toEqual(
      expect.arrayContaining([
        { userId: owner.userId, name: "Owner" },
        { userId: editor.userId, name: "Editor <script>" },
      ]),
    );
    // The next change opens a new window; the closed one is not sent again.
    const modId = second.json().modId;
    const saved = await service.app.inject({
      method: "PUT",
      url: `/modpacks/${hook.modpackId}/export-configuration`,
      headers: owner.headers,
      payload: { modsOrder: [modId], modConfig: { [modId]: { selectedPlatformModIds: [] } } },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const both = await waitFor(
      "the second event",
      async () => receiver.received(hook.path),
      (list) => list.length > 1,
    );
    expect(both).toHaveLength(2);
    const next = JSON.parse(both[1]!.body);
    expect(next.data.changes.items.map((change: { kind: string }) => change.kind)).toEqual(["load-order"]);
  });
});

describe("the end of the retry schedule", () => {
  let short: TestService;
  let shortOwner: SignedIn;

  beforeAll(async () => {
    short = await startTestService({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE_SECONDS: "0,0" },
    });
    shortOwner = await signIn(short, { name: "Owner" });
  });
  afterAll(async () => {
    await short.stop();
  });

  it("is the last attempt: a delivery that fails it is not tried again, and the webhook stays enabled", async () => {
    const path = "/hook-last-attempt";
    receiver.answer(path, { status: 500, body: "still down" });
    const modpackId = await createModpack(short, shortOwner, { name: "Short schedule" });
    const { id } = await addWebhook(short, shortOwner, modpackId, { url: receiver.url(path) });
    const base = `/modpacks/${modpackId}/webhooks/${id}`;
    const sent = await short.app.inject({ method: "POST", url: `${base}/test`, headers: shortOwner.headers });
    expect(sent.statusCode, sent.body).toBe(202);

    // An attempt is settled and its successor queued in one transaction: once the third attempt
    // reads `failed`, whatever follows it has been decided.
    const entries = await waitFor(
      "the third attempt settled",
      () => log(base, short, shortOwner),
      (list) => list.some((entry) => entry.attempt === 3 && entry.status === "failed"),
    );
    expect(entries.map((entry) => [entry.attempt, entry.status, entry.responseStatus])).toEqual([
      [3, "failed", 500],
      [2, "failed", 500],
      [1, "failed", 500],
    ]);
    expect(receiver.received(path)).toHaveLength(3);
    const queued = await short.runtime.jobs.boss.findJobs(WEBHOOK_DELIVERY_QUEUE, { queued: true });
    expect(queued).toEqual([]);
    const webhook = await short.runtime.database.db
      .selectFrom("webhooks")
      .select("isActive")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(webhook.isActive).toBe(true);
  });
});
