import { resource } from "../ports.js";
import { messageSchema } from "../schemas/common.js";
import {
  createdWebhookSchema,
  createWebhookInput,
  deliveryListSchema,
  MAX_WEBHOOKS_PER_MODPACK,
  rotatedSecretSchema,
  testDeliverySchema,
  updateWebhookInput,
  webhookListSchema,
  webhookPathInput,
  webhookSchema,
} from "../schemas/webhook.js";
import { operation, router } from "../trpc.js";

const tags = ["Webhooks"];

export const webhookPorts = resource("webhooks", {
  list: { modpack: true, output: webhookListSchema },
  /** 409 for a URL the modpack already has, 422 past the limit or for a refused target. */
  create: { modpack: true, input: createWebhookInput, output: createdWebhookSchema },
  update: { modpack: true, input: updateWebhookInput, output: webhookSchema },
  remove: { modpack: true, input: webhookPathInput, output: messageSchema },
  rotateSecret: { modpack: true, input: webhookPathInput, output: rotatedSecretSchema },
  test: { modpack: true, input: webhookPathInput, output: testDeliverySchema },
  deliveries: { modpack: true, input: webhookPathInput, output: deliveryListSchema },
});
const { of: service, schemas, call } = webhookPorts;

const targets =
  "A target whose name resolves to a loopback, private, link-local, carrier-grade NAT, multicast, reserved or unspecified address (IPv4 or IPv6, in any spelling) is refused with 422, and checked again at every delivery against the address actually connected to. `http` targets are refused (422) unless the server allows private targets (`WEBHOOK_ALLOW_PRIVATE_TARGETS`, for LAN installs and development).";

export const webhooksRouter = router({
  list: operation({
    method: "GET",
    path: "/modpacks/{id}/webhooks",
    tags,
    summary: "List webhooks",
    description:
      "The modpack's webhooks, oldest first, never with their secrets; a Discord webhook URL shows its token as `****`.",
    operationId: "listWebhooks",
    success: "The modpack's webhooks.",
    permission: "modpack.update",
    modpackAccess: "owner",
  })
    .concat(schemas.list)
    .query(call("list")),
  create: operation({
    method: "POST",
    path: "/modpacks/{id}/webhooks",
    tags,
    summary: "Add a webhook",
    description: `Adds a webhook that receives the modpack's events, signed the Standard Webhooks way (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`). The answer carries the signing \`secret\`, the only time it is shown (besides rotation). \`events\` defaults to every event type; \`format\` to \`discord\` for a Discord webhook URL and \`standard\` otherwise. Creating a webhook sends nothing.\n\n409 when the modpack already has a webhook with this URL; 422 when it has ${MAX_WEBHOOKS_PER_MODPACK} already. ${targets}\n\nCounts against the webhook rate limit (\`RATE_LIMIT_WEBHOOK_PER_MINUTE\`).`,
    operationId: "createWebhook",
    success: "The webhook, with its secret.",
    permission: "modpack.update",
    modpackAccess: "owner",
    successStatus: 201,
    errors: [409, 422, 429],
    rateLimit: "webhook",
  })
    .concat(schemas.create)
    .mutation(({ ctx, input }) => service(ctx).create(ctx.modpack, input)),
  update: operation({
    method: "PATCH",
    path: "/modpacks/{id}/webhooks/{webhookId}",
    tags,
    summary: "Change a webhook",
    description: `Changes the URL, events, description or \`isActive\` of a webhook; fields left out keep their value, and the format stays as created. Disabling cancels its pending retries; enabling again replays nothing and starts the failure count afresh. Changing a webhook sends nothing.\n\n404 for a webhook not on this modpack; 409 when another webhook of the modpack has the URL. ${targets}`,
    operationId: "updateWebhook",
    success: "The webhook as it now is.",
    permission: "modpack.update",
    modpackAccess: "owner",
    errors: [409, 422],
  })
    .concat(schemas.update)
    .mutation(({ ctx, input }) => service(ctx).update(ctx.modpack, input)),
  remove: operation({
    method: "DELETE",
    path: "/modpacks/{id}/webhooks/{webhookId}",
    tags,
    summary: "Delete a webhook",
    description:
      "Deletes the webhook with its delivery log; nothing more is sent to it, pending retries included. 404 for a webhook not on this modpack.",
    operationId: "deleteWebhook",
    success: "The webhook was deleted.",
    permission: "modpack.update",
    modpackAccess: "owner",
  })
    .concat(schemas.remove)
    .mutation(({ ctx, input }) => service(ctx).remove(ctx.modpack, input)),
  rotateSecret: operation({
    method: "POST",
    path: "/modpacks/{id}/webhooks/{webhookId}/rotate-secret",
    tags,
    summary: "Rotate a webhook's secret",
    description:
      "Makes a new signing secret and answers it, the only time it is shown. For the next 24 hours deliveries carry two signatures in `webhook-signature`, by the new secret and the old one, so a receiver can switch without losing events. 404 for a webhook not on this modpack.",
    operationId: "rotateWebhookSecret",
    success: "The new secret.",
    permission: "modpack.update",
    modpackAccess: "owner",
  })
    .concat(schemas.rotateSecret)
    .mutation(({ ctx, input }) => service(ctx).rotateSecret(ctx.modpack, input)),
  test: operation({
    method: "POST",
    path: "/modpacks/{id}/webhooks/{webhookId}/test",
    tags,
    summary: "Send a test event",
    description:
      "Queues a `webhook.test` event to this webhook at once, even if it does not subscribe to `webhook.test`, and answers the delivery to follow in its log. It is retried like any event. 404 for a webhook not on this modpack; 409 for a disabled webhook or an archived modpack. Counts against the webhook rate limit (`RATE_LIMIT_WEBHOOK_PER_MINUTE`).",
    operationId: "testWebhook",
    success: "The test event was queued.",
    permission: "modpack.update",
    modpackAccess: "owner",
    successStatus: 202,
    errors: [409, 429],
    rateLimit: "webhook",
  })
    .concat(schemas.test)
    .mutation(({ ctx, input }) => service(ctx).test(ctx.modpack, input)),
  deliveries: operation({
    method: "GET",
    path: "/modpacks/{id}/webhooks/{webhookId}/deliveries",
    tags,
    summary: "A webhook's delivery log",
    description:
      "The last 100 delivery attempts of the webhook, newest first: each attempt of an event is its own entry, with the same `eventId`. Attempts are kept 30 days. 404 for a webhook not on this modpack.",
    operationId: "listWebhookDeliveries",
    success: "The latest attempts.",
    permission: "modpack.update",
    modpackAccess: "owner",
  })
    .concat(schemas.deliveries)
    .query(call("deliveries")),
});
