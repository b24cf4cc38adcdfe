import { TRPCError } from "@trpc/server";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { findRequirements } from "../db/mod-requirements.js";
import { linkMods } from "../db/modpack-mods.js";
import { type AnnounceRevision, recordRevision } from "../db/modpack-revisions.js";
import { authorizeModpack } from "../db/modpacks.js";
import { upsertWorkshopItems } from "../db/mods.js";
import { notify } from "../db/notifications.js";
import type { ImportFailure, ModRow } from "../db/schema.js";
import { announceModpackChanged, publishImportFinished } from "../db/webhooks.js";
import { IMPORT_QUEUE } from "../services/ports.js";
import {
  type ExpansionBounds,
  type WorkshopClient,
  WorkshopError,
  type WorkshopItem,
  type WorkshopItemResult,
} from "../workshop/client.js";
import { describeRejectedValues } from "../workshop/description.js";
import type { JobDefinition } from "./boss.js";

const BATCH_SIZE = 100;
export const IMPORT_DEAD_LETTER_QUEUE = `${IMPORT_QUEUE}.dead`;

interface ImportJobData {
  importId: string;
}

interface ImportDependencies {
  db: Db;
  workshop: WorkshopClient;
  /** Items per collection and levels of nested collections an import accepts. */
  bounds: ExpansionBounds;
  /** Detail batches read at once, ahead of storing them (1: one at a time). */
  readAhead: number;
  /** How long after a modpack's first change its `modpack.changed` event is sent. */
  changedWindowSeconds?: number;
  /** Queues the `modpack.changed` event of the import's revision (set per batch of jobs). */
  announce?: AnnounceRevision;
}

/**
 * Why the requester may no longer import into the modpack (removed, lost the permission, archived),
 * or null: the service's own rule for `import`, and no import into an archived modpack, not even by
 * its owner.
 */
async function importRefusal(db: Db, modpackId: string, userId: string): Promise<string | null> {
  try {
    const access = await authorizeModpack(db, { userId }, modpackId, "import");
    return access.isActive ? null : "the modpack was archived.";
  } catch (error) {
    if (error instanceof TRPCError && error.code === "FORBIDDEN") return "you may no longer import into this modpack.";
    if (error instanceof TRPCError && error.code === "NOT_FOUND") return "the modpack was archived.";
    throw error;
  }
}

/** A Postgres error a retry cannot cure: the data itself (22xxx) or a constraint (23xxx) refused it. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/**
 * Stores one batch in one transaction: its catalogue rows, their links to the modpack, and the
 * import's progress, so a crash leaves either all of it or none. When the database refuses the
 * batch's data, each item is stored on its own and the ones it still refuses become `unstorable`
 * failures: a bad item never fails the others.
 */
async function storeBatch(
  db: Db,
  target: { importId: string; modpackId: string; requestedBy: string },
  items: WorkshopItem[],
  progress: { done: number; total: number },
): Promise<{ rows: ModRow[]; failures: ImportFailure[] }> {
  const store = (database: Db, batch: WorkshopItem[]) =>
    database.transaction().execute(async (inner) => {
      const rows = await upsertWorkshopItems(inner, batch);
      await linkMods(inner, target.modpackId, rows, target.requestedBy);
      await inner
        .updateTable("imports")
        .set({ itemsDone: progress.done, itemsTotal: progress.total })
        .where("id", "=", target.importId)
        .execute();
      return rows;
    });
  try {
    return { rows: await store(db, items), failures: [] };
  } catch (error) {
    if (!isDataError(error)) throw error;
  }
  const rows: ModRow[] = [];
  const failures: ImportFailure[] = [];
  for (const item of items) {
    try {
      rows.push(...(await store(db, [item])));
    } catch (error) {
      if (!isDataError(error)) throw error;
      failures.push(unstorable(item, error));
    }
  }
  return { rows, failures };
}

function unstorable(item: WorkshopItem, error: unknown): ImportFailure {
  const { code } = error as { code: string };
  return { workshopId: item.workshopId, reason: "unstorable", detail: `the database refused the item (${code})` };
}

/** The Steam Web API's answer, or "unavailable" when it could not give one. */
function orUnavailable<T>(reading: Promise<T>): Promise<T | "unavailable"> {
  return reading.catch((error: unknown) => {
    if (error instanceof WorkshopError) return "unavailable" as const;
    throw error;
  });
}

async function finishFailed(
  db: Db,
  importId: string,
  reason: string,
  progress?: { modsImported: number; failures: ImportFailure[] },
  announce?: AnnounceRevision,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("imports")
      .set({
        status: "failed",
        error: reason,
        finishedAt: sql<Date>`now()`,
        ...(progress && {
          modsImported: progress.modsImported,
          modsFailed: progress.failures.length,
          failures: JSON.stringify(progress.failures),
        }),
      })
      .where("id", "=", importId)
      .where("status", "in", ["pending", "running"])
      .returning(["modpackId", "requestedBy", "collectionId"])
      .executeTakeFirst();
    if (!row) return false;
    // Whatever the batches before the failure linked: one revision.
    await recordRevision(trx, row.modpackId, { reason: "import", authorId: row.requestedBy, announce });
    await notify(trx, {
      userId: row.requestedBy,
      title: "Import failed",
      content: `The workshop collection ${row.collectionId} could not be imported: ${reason}`,
      type: "error",
      metadata: { modpackId: row.modpackId, importId, collectionId: row.collectionId, error: reason },
    });
    return true;
  });
}

/**
 * Runs one import from the collection to the links; every step is idempotent, so a retry after a
 * crash is exact. Answers whether this run ended the import (completed or failed).
 */
export async function runImport(deps: ImportDependencies, importId: string): Promise<boolean> {
  const { db, workshop } = deps;
  const started = await db
    .updateTable("imports")
    .set({ status: "running", startedAt: sql<Date>`coalesce(started_at, now())`, itemsDone: 0 })
    .where("id", "=", importId)
    .where("status", "in", ["pending", "running"])
    .returning(["modpackId", "requestedBy", "collectionId"])
    .executeTakeFirst();
  if (!started) return false;
  const { modpackId, requestedBy, collectionId } = started;

  const expansion = await orUnavailable(workshop.expandCollection(collectionId, deps.bounds));
  if (expansion === "unavailable" || !expansion.ok) {
    const reasons = {
      unavailable: "The Steam Workshop could not be reached; try again later.",
      missing: "The collection does not exist, is private, or is not a collection.",
      too_many_items: `The collection holds more than ${deps.bounds.maxItems} items.`,
      too_deep: `The collection nests collections more than ${deps.bounds.maxDepth} levels deep.`,
    };
    return finishFailed(db, importId, reasons[expansion === "unavailable" ? expansion : expansion.reason]);
  }

  const queue = expansion.itemIds;
  const failures: ImportFailure[] = [];
  /** Imported items some of whose values were left out: reported, not counted as failed. */
  const notes: ImportFailure[] = [];
  const imported = new Set<string>();
  const importedRows: ModRow[] = [];
  await db.updateTable("imports").set({ itemsTotal: queue.length }).where("id", "=", importId).execute();

  const batches: string[][] = [];
  for (let start = 0; start < queue.length; start += BATCH_SIZE) batches.push(queue.slice(start, start + BATCH_SIZE));
  // Detail reads run a few batches ahead of the writes (one call a batch), so a slow Steam Web API
  // costs one round trip per few batches instead of one per batch. Batches are stored in order; a
  // read that fails is only seen when its batch's turn comes.
  const reads: Promise<WorkshopItemResult[] | "unavailable">[] = [];
  for (const [index, batch] of batches.entries()) {
    while (reads.length < Math.min(batches.length, index + deps.readAhead)) {
      const reading = orUnavailable(workshop.getItems(batches[reads.length]!));
      reading.catch(() => {});
      reads.push(reading);
    }
    const refusal = await importRefusal(db, modpackId, requestedBy);
    if (refusal) {
      return finishFailed(
        db,
        importId,
        `The import stopped: ${refusal}`,
        { modsImported: imported.size, failures },
        deps.announce,
      );
    }
    const results = await reads[index]!;
    if (results === "unavailable") {
      for (const workshopId of batch) failures.push({ workshopId, reason: "unavailable" });
      continue;
    }
    const items: WorkshopItem[] = [];
    for (const result of results) {
      if (result.ok) items.push(result.item);
      else failures.push({ workshopId: result.workshopId, reason: result.reason });
    }
    const done = Math.min(queue.length, (index + 1) * BATCH_SIZE);
    const stored = await storeBatch(db, { importId, modpackId, requestedBy }, items, { done, total: queue.length });
    importedRows.push(...stored.rows);
    for (const row of stored.rows) imported.add(row.workshopId);
    failures.push(...stored.failures);
    for (const item of items) {
      if (!imported.has(item.workshopId) || !item.rejectedValues?.length) continue;
      notes.push({
        workshopId: item.workshopId,
        reason: "ids_rejected",
        detail: describeRejectedValues(item.rejectedValues),
      });
    }
  }

  // The items the imported ones require, transitively: the same path as adding a mod. They count as
  // imported whether or not the modpack had them, so a retried import counts exactly the same.
  const requirements = await findRequirements(db, workshop, importedRows, new Set(queue));
  await linkMods(db, modpackId, requirements.mods, requestedBy);
  for (const row of requirements.mods) imported.add(row.workshopId);
  failures.push(...requirements.failures);
  const total = queue.length + requirements.mods.length + requirements.failures.length;

  return db.transaction().execute(async (trx) => {
    const finished = await trx
      .updateTable("imports")
      .set({
        status: "completed",
        modsImported: imported.size,
        modsFailed: failures.length,
        failures: JSON.stringify([...failures, ...notes]),
        itemsDone: total,
        itemsTotal: total,
        finishedAt: sql<Date>`now()`,
      })
      .where("id", "=", importId)
      .where("status", "=", "running")
      .returning("id")
      .executeTakeFirst();
    if (!finished) return false;
    await trx.updateTable("modpacks").set({ updatedAt: sql<Date>`now()` }).where("id", "=", modpackId).execute();
    // Everything the import linked, in all its batches: one revision (none when it linked nothing new).
    await recordRevision(trx, modpackId, { reason: "import", authorId: requestedBy, announce: deps.announce });
    await notify(trx, {
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
    });
    return true;
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
    // Jobs are grouped by requester: at most one import of a user runs at a time, on any instance,
    // so the other workers stay free for other users.
    work: { pollingIntervalSeconds: 1, localConcurrency: 3, groupConcurrency: 1, heartbeatRefreshSeconds: 3 },
    async handle(jobs, queue) {
      const announce = announceModpackChanged({ jobs: queue, windowSeconds: deps.changedWindowSeconds ?? 0 });
      for (const job of jobs) {
        if (await runImport({ ...deps, announce }, job.data.importId)) {
          await publishImportFinished({ db: deps.db, jobs: queue }, job.data.importId);
        }
      }
    },
  };
}

/** An import whose job failed for good (crashes past the retry limit) is marked failed, with a notification. */
export function importDeadLetterJob(deps: { db: Db }): JobDefinition<ImportJobData> {
  return {
    queue: IMPORT_DEAD_LETTER_QUEUE,
    options: { retryLimit: 5, retryDelay: 5 },
    async handle(jobs, queue) {
      for (const job of jobs) {
        if (await finishFailed(deps.db, job.data.importId, "The import stopped unexpectedly; start it again.")) {
          await publishImportFinished({ db: deps.db, jobs: queue }, job.data.importId);
        }
      }
    },
  };
}
