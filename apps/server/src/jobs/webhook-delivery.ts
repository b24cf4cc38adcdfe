import { Webhook } from "standardwebhooks";
import { type DueDelivery, dueDelivery, recordAttempt, type WebhookDependencies } from "../db/webhook-deliveries.js";
import { WEBHOOK_DELIVERY_QUEUE } from "../services/ports.js";
import { postWebhook } from "../webhooks/send.js";
import type { JobDefinition } from "./boss.js";

/** The Standard Webhooks headers of one attempt: one `v1,` signature per secret, space-separated. */
export function signedHeaders(delivery: DueDelivery, at: Date): Record<string, string> {
  const signatures = delivery.secrets.map((secret) => new Webhook(secret).sign(delivery.eventId, at, delivery.body));
  return {
    "webhook-id": delivery.eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}

/**
 * Sends one delivery attempt. Every attempt is its own job, grouped by webhook: a process works
 * several at once, and at most one per webhook across every process, so a slow receiver holds one
 * slot and never delays other webhooks or other queues. No database connection is held while the
 * receiver answers.
 */
export function webhookDeliveryJob(
  deps: Omit<WebhookDependencies, "jobs"> & { timeoutMs: number; concurrency: number },
): JobDefinition<{ deliveryId: string }> {
  return {
    queue: WEBHOOK_DELIVERY_QUEUE,
    // Retries are our own schedule (a new attempt each); an attempt that crashed is tried once more.
    options: { retryLimit: 1, retryDelay: 5, expireInSeconds: Math.ceil(deps.timeoutMs / 1000) + 60 },
    work: { localConcurrency: deps.concurrency, groupConcurrency: 1 },
    async handle([job], queue) {
      if (!job) return;
      const withQueue = { ...deps, jobs: queue };
      const delivery = await dueDelivery(withQueue, job.data.deliveryId);
      if (!delivery) return;
      const result = await postWebhook(
        { url: delivery.url, headers: signedHeaders(delivery, new Date()), body: delivery.body },
        { ...deps.settings.targets, timeoutMs: deps.timeoutMs },
      );
      await recordAttempt(withQueue, delivery, result);
    },
  };
}
