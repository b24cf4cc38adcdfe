import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ImportFailure } from "../db/schema.js";
import { upsertWorkshopItems } from "../services/mods.js";
import { createNotifications } from "../services/notifications.js";
import { type WorkshopClient, WorkshopError, type WorkshopItem } from "../workshop/client.js";
import type { JobDefinition } from "./boss.js";
import { IMPORT_QUEUE } from "./queues.js";

const BATCH_SIZE = 100;
export const IMPORT_DEAD_LETTER_QUEUE = `${IMPORT_QUEUE}.dead`;

interface ImportJobData {
  importId: string;
}

interface ImportDependencies {
  db: Db;
  workshop: WorkshopClient;
  /** Required items are followed only when the workshop client reads items with an API key. */
  followRequired: boolean;
}

/** Links mods to a modpack in one statement; a removed link comes back at the end of the load order. */
async function linkMods(db: Db, modpackId: string, modIds: string[], addedBy: string): Promise<void> {
  if (modIds.length === 0) return;
  await db
    .insertInto("modpackMods")
    .values(modIds.map((modId) => ({ modpackId, modId, addedBy })))
    .onConflict((oc) =>
      oc
        .columns(["modpackId", "modId"])
        .doUpdateSet({ isActive: true, addedAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
        .where("modpackMods.isActive", "=", false),
    )
    .execute();
}

async function finishFailed(db: Db, importId: string, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("imports")
      .set({ status: "failed", error: reason, finishedAt: sql<Date>`now()` })
      .where("id", "=", importId)
      .where("status", "in", ["pending", "running"])
      .returning(["modpackId", "requestedBy", "collectionId"])
      .executeTakeFirst();
    if (!row) return;
    await createNotifications(trx, [
      {
        userId: row.requestedBy,
        title: "Import failed",
        content: `The workshop collection ${row.collectionId} could not be imported: ${reason}`,
        type: "error",
        metadata: { modpackId: row.modpackId, importId, collectionId: row.collectionId, error: reason },
      },
    ]);
  });
}

/** Runs one import from the collection to the links; every step is idempotent, so a retry after a crash is exact. */
export async function runImport(deps: ImportDependencies, importId: string): Promise<void> {
  const { db, workshop } = deps;
  const started = await db
    .updateTable("imports")
    .set({ status: "running", startedAt: sql<Date>`coalesce(started_at, now())`, itemsDone: 0 })
    .where("id", "=", importId)
    .where("status", "in", ["pending", "running"])
    .returning(["modpackId", "requestedBy", "collectionId"])
    .executeTakeFirst();
  if (!started) return;
  const { modpackId, requestedBy, collectionId } = started;

  let expansion: Awaited<ReturnType<WorkshopClient["expandCollection"]>>;
  try {
    expansion = await workshop.expandCollection(collectionId);
  } catch (error) {
    if (error instanceof WorkshopError) {
      await finishFailed(db, importId, "The Steam Workshop could not be reached; try again later.");
      return;
    }
    throw error;
  }
  if (!expansion.ok) {
    await finishFailed(db, importId, "The collection does not exist, is private, or is not a collection.");
    return;
  }

  const queue = [...expansion.itemIds];
  const seen = new Set(queue);
  const failures: ImportFailure[] = [];
  const imported = new Set<string>();
  await db.updateTable("imports").set({ itemsTotal: queue.length }).where("id", "=", importId).execute();

  // Required items found on the way join the end of the queue, so the cursor runs until it catches up.
  let position = 0;
  while (position < queue.length) {
    const batch = queue.slice(position, position + BATCH_SIZE);
    position += batch.length;
    let results: Awaited<ReturnType<WorkshopClient["getItems"]>>;
    try {
      results = await workshop.getItems(batch);
    } catch (error) {
      if (!(error instanceof WorkshopError)) throw error;
      for (const workshopId of batch) failures.push({ workshopId, reason: "unavailable" });
      continue;
    }
    const items: WorkshopItem[] = [];
    for (const result of results) {
      if (!result.ok) {
        failures.push({ workshopId: result.workshopId, reason: result.reason });
        continue;
      }
      items.push(result.item);
      if (deps.followRequired) {
        for (const required of result.item.requiredWorkshopIds) {
          if (!seen.has(required)) {
            seen.add(required);
            queue.push(required);
          }
        }
      }
    }
    const rows = await upsertWorkshopItems(db, items);
    await linkMods(
      db,
      modpackId,
      rows.map((row) => row.id),
      requestedBy,
    );
    for (const item of items) imported.add(item.workshopId);
    await db
      .updateTable("imports")
      .set({ itemsDone: position, itemsTotal: queue.length })
      .where("id", "=", importId)
      .execute();
  }

  await db.transaction().execute(async (trx) => {
    const finished = await trx
      .updateTable("imports")
      .set({
        status: "completed",
        modsImported: imported.size,
        modsFailed: failures.length,
        failures: JSON.stringify(failures),
        itemsDone: queue.length,
        itemsTotal: queue.length,
        finishedAt: sql<Date>`now()`,
      })
      .where("id", "=", importId)
      .where("status", "=", "running")
      .returning("id")
      .executeTakeFirst();
    if (!finished) return;
    await trx.updateTable("modpacks").set({ updatedAt: sql<Date>`now()` }).where("id", "=", modpackId).execute();
    await createNotifications(trx, [
      {
        userId: requestedBy,
        title: failures.length > 0 ? "Import finished with failures" : "Import finished",
        content:
          failures.length > 0
            ? `${imported.size} mods were imported; ${failures.length} items could not be.`
            : `${imported.size} mods were imported.`,
        type: failures.length > 0 ? "warning" : "success",
        metadata: {
          modpackId,
          importId,
          collectionId,
          modsImported: imported.size,
          modsFailed: failures.length,
          failures,
        },
      },
    ]);
  });
}

export function importJob(deps: ImportDependencies): JobDefinition<ImportJobData> {
  return {
    queue: IMPORT_QUEUE,
    options: {
      retryLimit: 3,
      retryDelay: 1,
      retryBackoff: true,
      expireInSeconds: 600,
      heartbeatSeconds: 10,
      deadLetter: IMPORT_DEAD_LETTER_QUEUE,
    },
    work: { pollingIntervalSeconds: 1, localConcurrency: 2, heartbeatRefreshSeconds: 3 },
    async handle(jobs) {
      for (const job of jobs) await runImport(deps, job.data.importId);
    },
  };
}

/** An import whose job failed for good (crashes past the retry limit) is marked failed, with a notification. */
export function importDeadLetterJob(deps: { db: Db }): JobDefinition<ImportJobData> {
  return {
    queue: IMPORT_DEAD_LETTER_QUEUE,
    options: { retryLimit: 5, retryDelay: 5 },
    async handle(jobs) {
      for (const job of jobs) {
        await finishFailed(deps.db, job.data.importId, "The import stopped unexpectedly; start it again.");
      }
    },
  };
}
