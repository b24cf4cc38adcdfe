import { z } from "zod";
import { checkFindingSchema } from "./check.js";
import { exampleId, exampleTime, gameVersions, timestamp, uuid } from "./common.js";
import { jobStatuses } from "./import.js";
import { workshopIdSchema, workshopTextLimits } from "./workshop.js";

/** The events a webhook can subscribe to. */
export const webhookEventTypes = [
  "mods.updated",
  "modpack.changed",
  "export.ready",
  "export.failed",
  "import.finished",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** `standard`: the Standard Webhooks envelope; `discord`: the embeds a Discord webhook renders. */
export const webhookFormats = ["standard", "discord"] as const;
export type WebhookFormat = (typeof webhookFormats)[number];

/** At most this many webhooks on one modpack. */
export const MAX_WEBHOOKS_PER_MODPACK = 10;

function userInfoFree(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.username === "" && url.password === "";
}

const webhookUrl = z
  .string()
  .max(2048, { message: "Must be at most 2048 characters" })
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    message: "Must be an http(s) URL",
  })
  .refine(userInfoFree, { message: "Must not carry a user name or password" })
  .meta({
    description:
      "Where events are POSTed: an `https` URL (`http` only where private targets are allowed), at most 2,048 characters, with no user or password",
    example: "https://hooks.example.com/modpack",
  });

const eventList = z
  .array(z.enum(webhookEventTypes))
  .min(1, { message: "Name at least one event" })
  .max(webhookEventTypes.length)
  .refine((list) => new Set(list).size === list.length, { message: "Events must not repeat" })
  .meta({ description: "The events sent to this webhook", example: ["mods.updated", "modpack.changed"] });

const description = z.string().max(200, { message: "Must be at most 200 characters" });

const exampleWebhook = {
  id: exampleId,
  modpackId: exampleId,
  url: "https://hooks.example.com/modpack",
  events: ["mods.updated"],
  format: "standard",
  description: "Restart script",
  isActive: true,
  createdAt: exampleTime,
};

export const webhookSchema = z
  .object({
    id: uuid,
    modpackId: uuid,
    url: z.string().max(2048).meta({ description: "The target; a Discord webhook URL's token is masked as `****`" }),
    events: z.array(z.enum(webhookEventTypes)).max(webhookEventTypes.length),
    format: z.enum(webhookFormats),
    description: z.string().max(200).nullable(),
    isActive: z
      .boolean()
      .meta({ description: "False once disabled by its owner, by a `410`, or after a day of failures" }),
    createdAt: timestamp,
  })
  .meta({
    id: "Webhook",
    example: exampleWebhook,
  });

// `whsec_` and the base64 of at most 64 bytes.
const secret = z.string().max(100).meta({
  description:
    "The signing secret, `whsec_` and base64: shown only in this answer. Verify deliveries with any Standard Webhooks library.",
  example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
});

export const createdWebhookSchema = webhookSchema.extend({ secret }).meta({
  id: "CreatedWebhook",
  example: { ...exampleWebhook, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
});
export const webhookListSchema = z
  .object({ data: z.array(webhookSchema).max(MAX_WEBHOOKS_PER_MODPACK) })
  .meta({ id: "WebhookList" });
export const rotatedSecretSchema = z.object({ secret }).meta({ id: "RotatedWebhookSecret" });
export const testDeliverySchema = z
  .object({ deliveryId: uuid.meta({ description: "The delivery to follow in the webhook's deliveries" }) })
  .meta({ id: "WebhookTestDelivery" });

export const deliveryStatuses = ["pending", "succeeded", "failed"] as const;

export const deliverySchema = z
  .object({
    id: uuid,
    eventId: z
      .string()
      .max(100)
      .meta({ description: "The `webhook-id` header: the same on every attempt of one event" }),
    eventType: z.enum(webhookEventTypes),
    attempt: z.number().int().meta({ description: "1 for the first attempt" }),
    status: z.enum(deliveryStatuses),
    responseStatus: z.number().int().nullable(),
    error: z
      .string()
      .max(4096)
      .nullable()
      .meta({ description: "Why the attempt failed, or the start of the answer's body (at most 4,096 characters)" }),
    durationMs: z.number().int().nullable(),
    createdAt: timestamp,
  })
  .meta({ id: "WebhookDelivery" });

export const deliveryListSchema = z
  .object({ data: z.array(deliverySchema).max(100) })
  .meta({ id: "WebhookDeliveryList" });

const webhookId = uuid.meta({ description: "The webhook's identifier", example: exampleId });

export const createWebhookInput = z.object({
  id: uuid,
  url: webhookUrl,
  events: eventList.optional(),
  format: z
    .enum(webhookFormats)
    .optional()
    .meta({ description: "`standard` by default; `discord` by default for a Discord webhook URL" }),
  description: description.optional(),
});

export const webhookPathInput = z.object({ id: uuid, webhookId });

export const updateWebhookInput = webhookPathInput.extend({
  url: webhookUrl.optional().meta({
    description: "A new target, under the same rules as at creation",
    example: "https://hooks.example.com/restart",
  }),
  events: eventList.optional(),
  description: description.nullable().optional(),
  isActive: z
    .boolean()
    .optional()
    .meta({ description: "false disables (pending retries are cancelled); true enables", example: true }),
});

// Event payloads: the envelope `{ type, timestamp, data }`, `data` naming the modpack.

const modpackRef = z.object({ id: uuid, name: z.string().max(50) });

/**
 * A list cut to keep the payload small, with how many it held. A body stays under 20 KB and an item
 * takes more than 80 bytes of it, so no list holds more than 250.
 */
const counted = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item).max(250), total: z.number().int() });

const modName = z.string().max(workshopTextLimits.title);

const updatedMod = z.object({
  modId: uuid,
  workshopId: workshopIdSchema,
  name: modName,
  timeUpdated: timestamp.nullable(),
});

export const modsUpdatedDataSchema = z
  .object({
    modpack: modpackRef,
    updated: counted(updatedMod).meta({ description: "Mods updated on the workshop" }),
    removed: counted(updatedMod).meta({ description: "Mods removed, hidden or delisted on the workshop" }),
    findings: counted(checkFindingSchema).meta({
      description: "New error findings of the modpack check this run caused",
    }),
  })
  .meta({ id: "ModsUpdatedData" });

export const modpackChangedDataSchema = z
  .object({
    modpack: modpackRef,
    changes: counted(
      z.object({
        kind: z.enum(["mod-added", "mod-removed", "load-order"]),
        modId: uuid.nullable(),
        name: modName.nullable(),
        byUserId: uuid,
        at: timestamp,
      }),
    ),
    by: z.array(z.object({ userId: uuid, name: z.string() })),
  })
  .meta({ id: "ModpackChangedData" });

export const exportEventDataSchema = z
  .object({
    modpack: modpackRef,
    exportId: uuid,
    version: z.enum(gameVersions),
    downloadPath: z.string().max(100),
    error: z.string().max(200).nullable(),
  })
  .meta({ id: "ExportEventData" });

export const importFinishedDataSchema = z
  .object({
    modpack: modpackRef,
    importId: uuid,
    status: z.enum(jobStatuses),
    modsImported: z.number().int(),
    modsFailed: z.number().int(),
  })
  .meta({ id: "ImportFinishedData" });

export const webhookTestDataSchema = z
  .object({ modpack: modpackRef, webhookId: uuid, message: z.string().max(200) })
  .meta({ id: "WebhookTestData" });

const envelope = <Type extends WebhookEventType, Data extends z.ZodType>(type: Type, data: Data, id: string) =>
  z.object({ type: z.literal(type), timestamp, data }).meta({ id });

/** Every event body a webhook of format `standard` receives, by type. */
export const webhookEventSchemas = {
  "mods.updated": envelope("mods.updated", modsUpdatedDataSchema, "ModsUpdatedEvent"),
  "modpack.changed": envelope("modpack.changed", modpackChangedDataSchema, "ModpackChangedEvent"),
  "export.ready": envelope("export.ready", exportEventDataSchema, "ExportReadyEvent"),
  "export.failed": envelope("export.failed", exportEventDataSchema, "ExportFailedEvent"),
  "import.finished": envelope("import.finished", importFinishedDataSchema, "ImportFinishedEvent"),
  "webhook.test": envelope("webhook.test", webhookTestDataSchema, "WebhookTestEvent"),
} as const;

export type Webhook = z.infer<typeof webhookSchema>;
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>;
export type WebhookDelivery = z.infer<typeof deliverySchema>;
export type ModsUpdatedData = z.infer<typeof modsUpdatedDataSchema>;
export type ModpackChangedData = z.infer<typeof modpackChangedDataSchema>;
export type ExportEventData = z.infer<typeof exportEventDataSchema>;
export type ImportFinishedData = z.infer<typeof importFinishedDataSchema>;
export type WebhookTestData = z.infer<typeof webhookTestDataSchema>;
export type WebhookEvent = { [T in WebhookEventType]: z.infer<(typeof webhookEventSchemas)[T]> }[WebhookEventType];
