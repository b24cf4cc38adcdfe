import {
  conflict,
  MAX_WEBHOOKS_PER_MODPACK,
  type ModpackAccess,
  notFound,
  type Services,
  unprocessable,
  type Webhook,
  type WebhookDelivery,
  type WebhookEvent,
  webhookEventTypes,
} from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { statesAt } from "../db/modpack-revisions.js";
import { notify } from "../db/notifications.js";
import { publishEvent, queueDeliveries } from "../db/webhooks.js";
import { compareStates } from "../modpack/revision-state.js";
import { newWebhookSecret, openSecret, sealSecret } from "../webhooks/secrets.js";
import type { SendOutcome } from "../webhooks/send.js";
import { isDiscordWebhook, maskUrl, refuseTarget, type TargetRules } from "../webhooks/targets.js";
import { type JobQueue, WEBHOOK_DELIVERY_QUEUE } from "./ports.js";

/** How long a rotated-out secret keeps signing beside the new one. */
const PREVIOUS_SECRET_HOURS = 24;
/** Entries the delivery log answers. */
const LOG_LENGTH = 100;

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

const columns = ["id", "modpackId", "url", "events", "format", "description", "isActive", "createdAt"] as const;

function toWebhook(row: Omit<Webhook, "createdAt"> & { createdAt: Date }): Webhook {
  return { ...row, url: maskUrl(row.url), createdAt: row.createdAt.toISOString() };
}

async function loadWebhook(db: Db, modpackId: string, webhookId: string) {
  const row = await db
    .selectFrom("webhooks")
    .select(columns)
    .where("id", "=", webhookId)
    .where("modpackId", "=", modpackId)
    .executeTakeFirst();
  if (!row) throw notFound("Webhook not found");
  return row;
}

async function checkTarget(settings: WebhookSettings, url: string): Promise<void> {
  const refusal = await refuseTarget(url, settings.targets);
  if (refusal) throw unprocessable(refusal);
}

/** A unique violation of one modpack's URLs (the same URL twice) becomes a 409. */
function refuseDuplicateUrl(error: unknown): never {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "23505") throw conflict("The modpack already has a webhook with this URL");
  throw error;
}

/** Marks pending deliveries (one, or all of a webhook) cancelled: their queued jobs then send nothing. */
function cancelPending(db: Db, which: { id: string } | { webhookId: string }, reason: string) {
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

export function webhooksService(deps: WebhookDependencies): Services["webhooks"] {
  const { db, settings } = deps;
  return {
    async list(modpack) {
      const rows = await db
        .selectFrom("webhooks")
        .select(columns)
        .where("modpackId", "=", modpack.id)
        .orderBy("createdAt")
        .orderBy("id")
        .execute();
      return { data: rows.map(toWebhook) };
    },

    async create(modpack, input) {
      await checkTarget(settings, input.url);
      const secret = newWebhookSecret();
      const row = await db
        .transaction()
        .execute(async (trx) => {
          // Serialises the creates of one modpack, so that the limit holds under concurrency.
          await trx.selectFrom("modpacks").select("id").where("id", "=", modpack.id).forUpdate().execute();
          const { count } = await trx
            .selectFrom("webhooks")
            .select((eb) => eb.fn.countAll<string>().as("count"))
            .where("modpackId", "=", modpack.id)
            .executeTakeFirstOrThrow();
          if (Number(count) >= MAX_WEBHOOKS_PER_MODPACK) {
            throw unprocessable(`A modpack has at most ${MAX_WEBHOOKS_PER_MODPACK} webhooks`);
          }
          return trx
            .insertInto("webhooks")
            .values({
              modpackId: modpack.id,
              url: input.url,
              events: input.events ?? [...webhookEventTypes],
              format: input.format ?? (isDiscordWebhook(input.url) ? "discord" : "standard"),
              description: input.description ?? null,
              secret: sealSecret(settings.secretKey, secret),
            })
            .returning(columns)
            .executeTakeFirstOrThrow();
        })
        .catch(refuseDuplicateUrl);
      return { ...toWebhook(row), secret };
    },

    async update(modpack, input) {
      const current = await loadWebhook(db, modpack.id, input.webhookId);
      if (input.url !== undefined && input.url !== current.url) await checkTarget(settings, input.url);
      const row = await db
        .transaction()
        .execute(async (trx) => {
          const updated = await trx
            .updateTable("webhooks")
            .set({
              ...(input.url !== undefined ? { url: input.url } : {}),
              ...(input.events !== undefined ? { events: input.events } : {}),
              ...(input.description !== undefined ? { description: input.description } : {}),
              ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
              // Enabled again: the failures before it no longer count towards disabling it.
              ...(input.isActive === true && !current.isActive ? { failingSince: null } : {}),
              updatedAt: sql<Date>`now()`,
            })
            .where("id", "=", current.id)
            .returning(columns)
            .executeTakeFirstOrThrow();
          if (input.isActive === false) await cancelPending(trx, { webhookId: current.id }, "the webhook was disabled");
          return updated;
        })
        .catch(refuseDuplicateUrl);
      return toWebhook(row);
    },

    async remove(modpack, input) {
      const result = await db
        .deleteFrom("webhooks")
        .where("id", "=", input.webhookId)
        .where("modpackId", "=", modpack.id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw notFound("Webhook not found");
      return { message: "Webhook deleted" };
    },

    async rotateSecret(modpack, input) {
      const secret = newWebhookSecret();
      const result = await db
        .updateTable("webhooks")
        .set({
          previousSecret: sql<string>`secret`,
          previousSecretExpiresAt: sql<Date>`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
          secret: sealSecret(settings.secretKey, secret),
          updatedAt: sql<Date>`now()`,
        })
        .where("id", "=", input.webhookId)
        .where("modpackId", "=", modpack.id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw notFound("Webhook not found");
      return { secret };
    },

    async test(modpack, input) {
      const webhook = await loadWebhook(db, modpack.id, input.webhookId);
      if (!webhook.isActive) throw conflict("The webhook is disabled; enable it to send a test event");
      if (!modpack.isActive) throw conflict("The modpack is archived; restore it to send a test event");
      const [deliveryId] = await queueDeliveries(deps, [webhook], testEvent(modpack, webhook.id));
      return { deliveryId: deliveryId! };
    },

    async deliveries(modpack, input) {
      await loadWebhook(db, modpack.id, input.webhookId);
      const rows = await db
        .selectFrom("webhookDeliveries")
        .select([
          "id",
          "eventId",
          "eventType",
          "attempt",
          "status",
          "responseStatus",
          "error",
          "durationMs",
          "createdAt",
        ])
        .where("webhookId", "=", input.webhookId)
        .orderBy("createdAt", "desc")
        .orderBy("id", "desc")
        .limit(LOG_LENGTH)
        .execute();
      return {
        data: rows.map((row): WebhookDelivery => ({ ...row, createdAt: row.createdAt.toISOString() })),
      };
    },
  };
}

function testEvent(modpack: ModpackAccess, webhookId: string): WebhookEvent {
  return {
    type: "webhook.test",
    timestamp: new Date().toISOString(),
    data: {
      modpack: { id: modpack.id, name: modpack.name },
      webhookId,
      message: "A test event: this webhook receives the modpack's events.",
    },
  };
}

/** Sends `import.finished` for an import that has just ended, as its row now stands. */
export async function publishImportFinished(deps: Pick<WebhookDependencies, "db" | "jobs">, importId: string) {
  const row = await deps.db
    .selectFrom("imports")
    .innerJoin("modpacks", "modpacks.id", "imports.modpackId")
    .select([
      "modpacks.id as modpackId",
      "modpacks.name",
      "imports.status",
      "imports.modsImported",
      "imports.modsFailed",
    ])
    .where("imports.id", "=", importId)
    .executeTakeFirst();
  if (!row) return 0;
  return publishEvent(deps, row.modpackId, {
    type: "import.finished",
    timestamp: new Date().toISOString(),
    data: {
      modpack: { id: row.modpackId, name: row.name },
      importId,
      status: row.status,
      modsImported: row.modsImported,
      modsFailed: row.modsFailed,
    },
  });
}

/** Sends `export.ready` or `export.failed` for a server file that has just been made or given up on. */
export async function publishExportFinished(deps: Pick<WebhookDependencies, "db" | "jobs">, exportId: string) {
  const row = await deps.db
    .selectFrom("exports")
    .innerJoin("modpacks", "modpacks.id", "exports.modpackId")
    .select(["modpacks.id as modpackId", "modpacks.name", "exports.status", "exports.version", "exports.error"])
    .where("exports.id", "=", exportId)
    .executeTakeFirst();
  if (!row || (row.status !== "completed" && row.status !== "failed")) return 0;
  return publishEvent(deps, row.modpackId, {
    type: row.status === "completed" ? "export.ready" : "export.failed",
    timestamp: new Date().toISOString(),
    data: {
      modpack: { id: row.modpackId, name: row.name },
      exportId,
      version: row.version,
      downloadPath: `/modpacks/export/${exportId}/download`,
      error: row.status === "failed" ? row.error : null,
    },
  });
}

/**
 * Sends the `modpack.changed` event for the revisions of a closed window, and marks them announced:
 * each revision's added and removed mods, and one `load-order` change when it moved or reselected
 * any, by its author.
 */
export async function publishModpackChanged(deps: Pick<WebhookDependencies, "db" | "jobs">, modpackId: string) {
  const revisions = await deps.db
    .updateTable("modpackRevisions")
    .set({ announced: true })
    .where("modpackId", "=", modpackId)
    .where("announced", "=", false)
    .returning(["number", "authorId", "createdAt", "moved", "selectionChanged"])
    .execute();
  const authored = revisions
    .filter((revision): revision is typeof revision & { authorId: string } => revision.authorId !== null)
    .sort((a, b) => a.number - b.number);
  if (authored.length === 0) return 0;
  const modpack = await deps.db
    .selectFrom("modpacks")
    .select(["id", "name"])
    .where("id", "=", modpackId)
    .executeTakeFirst();
  if (!modpack) return 0;
  type Item = {
    kind: "mod-added" | "mod-removed" | "load-order";
    modId: string | null;
    name: string | null;
    byUserId: string;
    at: string;
  };
  const items: Item[] = [];
  for (const revision of authored) {
    const [before, after] = await statesAt(deps.db, modpackId, revision.number - 1, revision.number);
    const { added, removed } = compareStates(before, after);
    const at = revision.createdAt.toISOString();
    const byUserId = revision.authorId;
    for (const mod of added) items.push({ kind: "mod-added", modId: mod.id, name: mod.name, byUserId, at });
    for (const mod of removed) items.push({ kind: "mod-removed", modId: mod.id, name: mod.name, byUserId, at });
    if (revision.moved + revision.selectionChanged > 0) {
      items.push({ kind: "load-order", modId: null, name: null, byUserId, at });
    }
  }
  const userIds = [...new Set(authored.map((revision) => revision.authorId))];
  const users = await deps.db.selectFrom("users").select(["id", "name"]).where("id", "in", userIds).execute();
  return publishEvent(deps, modpackId, {
    type: "modpack.changed",
    timestamp: new Date().toISOString(),
    data: {
      modpack,
      changes: { items: items.slice(0, 100), total: items.length },
      by: users.map((user) => ({ userId: user.id, name: user.name })),
    },
  });
}
