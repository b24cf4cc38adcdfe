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
import { cancelPending, type WebhookDependencies, type WebhookSettings } from "../db/webhook-deliveries.js";
import { queueDeliveries } from "../db/webhooks.js";
import { newWebhookSecret, sealSecret } from "../webhooks/secrets.js";
import { isDiscordWebhook, maskUrl, refuseTarget } from "../webhooks/targets.js";

/** How long a rotated-out secret keeps signing beside the new one. */
const PREVIOUS_SECRET_HOURS = 24;
/** Entries the delivery log answers. */
const LOG_LENGTH = 100;

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
