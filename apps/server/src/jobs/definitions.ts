import type { Config } from "../config.js";
import type { Db } from "../db/database.js";
import type { WebhookSettings } from "../db/webhook-deliveries.js";
import type { WorkshopClient } from "../workshop/client.js";
import type { JobDefinition } from "./boss.js";
import { exportDeadLetterJob, exportJob } from "./export.js";
import { importDeadLetterJob, importJob } from "./import.js";
import { purgeJob, sweepSessionsJob } from "./maintenance.js";
import { modUpdateJob } from "./mod-update.js";
import { modpackChangedJob } from "./modpack-changed.js";
import { reparseJob } from "./reparse.js";
import { webhookDeliveryJob } from "./webhook-delivery.js";

/** Every queue of the service and its worker, as the configuration sets them up. */
export function jobDefinitions(
  config: Config,
  db: Db,
  workshop: WorkshopClient,
  webhookSettings: WebhookSettings,
): JobDefinition[] {
  return [
    sweepSessionsJob(db),
    purgeJob(db, {
      exportsAfterDays: config.limits.purgeExportsAfterDays,
      readNotificationsAfterDays: config.limits.purgeReadNotificationsAfterDays,
      webhookDeliveriesAfterDays: config.limits.purgeWebhookDeliveriesAfterDays,
    }),
    // A dead-letter queue is created before the queue that names it.
    importDeadLetterJob({ db: db }),
    importJob({
      db: db,
      workshop,
      bounds: { maxItems: config.limits.importMaxItems, maxDepth: config.limits.importMaxDepth },
      readAhead: config.limits.importReadAhead,
      changedWindowSeconds: config.webhooks.changedWindowSeconds,
    }),
    modUpdateJob({ db: db, workshop }),
    reparseJob(db),
    exportDeadLetterJob({ db: db }),
    exportJob({ db: db }),
    modpackChangedJob({ db: db }),
    webhookDeliveryJob({
      db: db,
      settings: webhookSettings,
      timeoutMs: config.webhooks.timeoutMs,
      concurrency: config.webhooks.concurrency,
    }),
  ];
}
