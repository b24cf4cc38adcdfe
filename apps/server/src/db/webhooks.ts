import { randomUUID } from "node:crypto";
import type { Webhook, WebhookEvent } from "@modpack/contract";
import { sql } from "kysely";
import { type JobQueue, MODPACK_CHANGED_QUEUE, WEBHOOK_DELIVERY_QUEUE } from "../services/ports.js";
import { renderEvent } from "../webhooks/render.js";
import type { Db } from "./database.js";

/*
 * A modpack's events as the writers that cause them queue them: a change of its mods (through the
 * `modpack.changed` window), an import, an export, the catalogue's update. Each is a row in the
 * delivery log and a job of the delivery queue, written in the caller's transaction where it has one.
 */

/** What queuing an event needs: the database and the job queue's `send`. */
export interface EventDependencies {
  db: Db;
  jobs: Pick<JobQueue, "send">;
}

/**
 * Queues one event to each given webhook: a pending first attempt in the log and its delivery job,
 * in one transaction, so a job exists only for a logged attempt. Answers the attempts' ids.
 */
export async function queueDeliveries(
  deps: EventDependencies,
  targets: Pick<Webhook, "id" | "format">[],
  event: WebhookEvent,
): Promise<string[]> {
  if (targets.length === 0) return [];
  const eventId = `msg_${randomUUID()}`;
  return deps.db.transaction().execute(async (trx) => {
    const rows = await trx
      .insertInto("webhookDeliveries")
      .values(
        targets.map((target) => ({
          webhookId: target.id,
          eventId,
          eventType: event.type,
          body: renderEvent(target.format, event),
          attempt: 1,
        })),
      )
      .returning(["id", "webhookId"])
      .execute();
    for (const row of rows) {
      await deps.jobs.send(WEBHOOK_DELIVERY_QUEUE, { deliveryId: row.id }, { db: trx, group: { id: row.webhookId } });
    }
    return rows.map((row) => row.id);
  });
}

/**
 * Sends an event of a modpack to every active webhook of it that subscribes to the event's type;
 * nothing while the modpack is archived. Answers how many deliveries were queued.
 */
export async function publishEvent(deps: EventDependencies, modpackId: string, event: WebhookEvent): Promise<number> {
  const targets = await deps.db
    .selectFrom("webhooks")
    .innerJoin("modpacks", "modpacks.id", "webhooks.modpackId")
    .select(["webhooks.id", "webhooks.format"])
    .where("webhooks.modpackId", "=", modpackId)
    .where("webhooks.isActive", "=", true)
    .where("modpacks.isActive", "=", true)
    .where(sql<boolean>`${event.type} = any(webhooks.events)`)
    .execute();
  return (await queueDeliveries(deps, targets, event)).length;
}

/**
 * Announces a new revision in the modpack's `modpack.changed` event, in the recording transaction,
 * when a webhook of the modpack wants the event: the first revision of a window queues the job that
 * sends the event `windowSeconds` later; while it waits, later revisions join it (one queued job per
 * modpack). Answers whether the event is wanted (the revision then waits for it).
 */
export function announceModpackChanged(deps: { jobs: Pick<JobQueue, "send">; windowSeconds: number }) {
  return async (trx: Db, modpackId: string): Promise<boolean> => {
    const wanted = await trx
      .selectFrom("webhooks")
      .select("id")
      .where("modpackId", "=", modpackId)
      .where("isActive", "=", true)
      .where(sql<boolean>`'modpack.changed' = any(events)`)
      .limit(1)
      .executeTakeFirst();
    if (!wanted) return false;
    await deps.jobs.send(
      MODPACK_CHANGED_QUEUE,
      { modpackId },
      {
        db: trx,
        singletonKey: modpackId,
        ...(deps.windowSeconds >= 1 ? { startAfter: new Date(Date.now() + deps.windowSeconds * 1000) } : {}),
      },
    );
    return true;
  };
}
