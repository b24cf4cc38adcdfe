import { sql } from "kysely";
import { type JobQueue, WEBHOOK_DELIVERY_QUEUE } from "../services/ports.js";
import { openSecret } from "../webhooks/secrets.js";
import type { SendOutcome } from "../webhooks/send.js";
import { maskUrl, type TargetRules } from "../webhooks/targets.js";
import type { Db } from "./database.js";
import { notify } from "./notifications.js";

/*
 * A webhook's delivery log as its delivery job reads and writes it: the attempt to send, what it
 * got, the next attempt or the webhook's end, and the log's purge.
 */

export interface WebhookSettings {
  /** Encrypts secrets at rest. */
  secretKey: Buffer;
  targets: TargetRules;
  /** Retry delays in seconds, after the first attempt, the second, ... */
  retrySchedule: number[];
  /** A webhook whose deliveries have all failed for this long is disabled. */
  disableAfterSeconds: number;
}

export interface WebhookDependencies {
  db: Db;
  jobs: Pick<JobQueue, "send">;
  settings: WebhookSettings;
}

/** Marks pending deliveries (one, or all of a webhook) cancelled: their queued jobs then send nothing. */
export function cancelPending(db: Db, which: { id: string } | { webhookId: string }, reason: string) {
  return db
    .updateTable("webhookDeliveries")
    .set({ status: "failed", error: `Cancelled: ${reason}` })
    .where((eb) => eb.and(which))
    .where("status", "=", "pending")
    .execute();
}

/** One delivery attempt as the worker needs it: the body, the target and the secrets that sign it. */
export interface DueDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  attempt: number;
  body: string;
  url: string;
  /** The current secret first, then the rotated-out one while it still signs. */
  secrets: string[];
}

/**
 * The pending attempt to send now, or null when there is nothing to send: already settled or
 * cancelled, or its webhook disabled, deleted, or on an archived modpack (then the attempt is
 * marked cancelled). One short read: no connection is held while the attempt is sent.
 */
export async function dueDelivery(deps: WebhookDependencies, deliveryId: string): Promise<DueDelivery | null> {
  const row = await deps.db
    .selectFrom("webhookDeliveries as d")
    .innerJoin("webhooks as w", "w.id", "d.webhookId")
    .innerJoin("modpacks as m", "m.id", "w.modpackId")
    .select(["d.id", "d.webhookId", "d.eventId", "d.attempt", "d.body", "d.status", "w.url", "w.secret"])
    .select(["w.previousSecret", "w.previousSecretExpiresAt", "w.isActive", "m.isActive as modpackActive"])
    .where("d.id", "=", deliveryId)
    .executeTakeFirst();
  if (row?.status !== "pending") return null;
  const { secret, previousSecret, previousSecretExpiresAt, isActive, modpackActive, ...delivery } = row;
  if (!isActive || !modpackActive) {
    await cancelPending(deps.db, { id: row.id }, isActive ? "the modpack is archived" : "the webhook is disabled");
    return null;
  }
  const secrets = [openSecret(deps.settings.secretKey, secret)];
  if (previousSecret && previousSecretExpiresAt && previousSecretExpiresAt.getTime() > Date.now()) {
    secrets.push(openSecret(deps.settings.secretKey, previousSecret));
  }
  return { ...delivery, secrets };
}

/** Statuses whose `Retry-After` is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 502, 504]);
/** The longest a `Retry-After` may push a retry out. */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** A retry's delay with up to a tenth added at random, so that many failed receivers are not retried in step. */
function withJitter(seconds: number): number {
  return seconds * (1 + Math.random() * 0.1);
}

/**
 * Records what an attempt got and decides what follows: a 2xx succeeds; a 410 disables the
 * webhook; any other failure queues the next attempt of the schedule (later if the receiver's
 * `Retry-After` says so), unless the webhook has failed for `disableAfterSeconds`, which disables it
 * and warns its owner.
 */
export async function recordAttempt(
  deps: WebhookDependencies,
  delivery: DueDelivery,
  result: SendOutcome,
): Promise<void> {
  const succeeded = result.status !== null && result.status >= 200 && result.status < 300;
  const { settings } = deps;
  await deps.db.transaction().execute(async (trx) => {
    const settled = await trx
      .updateTable("webhookDeliveries")
      .set({
        status: succeeded ? "succeeded" : "failed",
        responseStatus: result.status,
        error: succeeded ? null : (result.detail ?? `HTTP ${result.status}`),
        durationMs: result.durationMs,
      })
      .where("id", "=", delivery.id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    // Cancelled while it was being sent: the webhook was disabled or deleted meanwhile.
    if (Number(settled.numUpdatedRows) === 0) return;
    // A success ends the webhook's run of failures; a failure starts one, or extends the one under way.
    const webhook = await trx
      .updateTable("webhooks")
      .set({ failingSince: succeeded ? null : sql<Date>`coalesce(failing_since, now())` })
      .where("id", "=", delivery.webhookId)
      .returning(["id", "modpackId", "url", "isActive"])
      .returning(sql<number>`extract(epoch from now() - failing_since)`.as("failingForSeconds"))
      .executeTakeFirst();
    if (succeeded || !webhook?.isActive) return;
    if (result.status === 410) {
      await disable(trx, webhook.id, "the receiver answered 410 Gone");
      return;
    }
    if (Number(webhook.failingForSeconds) >= settings.disableAfterSeconds) {
      await disable(trx, webhook.id, "its deliveries failed for too long");
      const modpack = await trx
        .selectFrom("modpacks")
        .select(["ownerId", "name"])
        .where("id", "=", webhook.modpackId)
        .executeTakeFirstOrThrow();
      await notify(trx, {
        userId: modpack.ownerId,
        title: "A webhook was disabled",
        content: `The webhook ${maskUrl(webhook.url)} of "${modpack.name}" was disabled: its deliveries have failed for a day. Fix the receiver, then enable it again.`,
        type: "warning",
        metadata: { modpackId: webhook.modpackId, webhookId: webhook.id },
      });
      return;
    }
    const scheduled = settings.retrySchedule[delivery.attempt - 1];
    if (scheduled === undefined) return;
    const askedFor =
      result.status !== null && RETRY_AFTER_STATUSES.has(result.status) && result.retryAfterSeconds !== null
        ? Math.min(result.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS)
        : 0;
    const delaySeconds = Math.max(withJitter(scheduled), askedFor);
    const next = await trx
      .insertInto("webhookDeliveries")
      .columns(["webhookId", "eventId", "eventType", "body", "attempt"])
      .expression((eb) =>
        eb
          .selectFrom("webhookDeliveries")
          .select(["webhookId", "eventId", "eventType", "body", sql<number>`attempt + 1`.as("attempt")])
          .where("id", "=", delivery.id),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    await deps.jobs.send(
      WEBHOOK_DELIVERY_QUEUE,
      { deliveryId: next.id },
      {
        db: trx,
        group: { id: delivery.webhookId },
        // A retry due now is due by the database's clock, which this process's may be behind.
        ...(delaySeconds >= 1 ? { startAfter: new Date(Date.now() + delaySeconds * 1000) } : {}),
      },
    );
  });
}

async function disable(db: Db, webhookId: string, reason: string): Promise<void> {
  await db
    .updateTable("webhooks")
    .set({ isActive: false, updatedAt: sql<Date>`now()` })
    .where("id", "=", webhookId)
    .execute();
  await cancelPending(db, { webhookId }, `the webhook was disabled: ${reason}`);
}

/** Deletes settled delivery attempts older than `days`; answers how many. */
export async function purgeDeliveries(db: Db, days: number): Promise<number> {
  const result = await db
    .deleteFrom("webhookDeliveries")
    .where("status", "!=", "pending")
    .where("createdAt", "<", sql<Date>`now() - make_interval(days => ${days})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
