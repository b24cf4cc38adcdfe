import { randomUUID } from "node:crypto";
import type { Webhook, WebhookEvent } from "@modpack/contract";
import { sql } from "kysely";
import { compareStates } from "../modpack/revision-state.js";
import { type JobQueue, MODPACK_CHANGED_QUEUE, WEBHOOK_DELIVERY_QUEUE } from "../services/ports.js";
import { renderEvent } from "../webhooks/render.js";
import type { Db } from "./database.js";
import { statesAt } from "./modpack-revisions.js";

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

/** Sends `import.finished` for an import that has just ended, as its row now stands. */
export async function publishImportFinished(deps: EventDependencies, importId: string) {
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
export async function publishExportFinished(deps: EventDependencies, exportId: string) {
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
export async function publishModpackChanged(deps: EventDependencies, modpackId: string) {
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
