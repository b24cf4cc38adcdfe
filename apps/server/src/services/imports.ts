import {
  conflict,
  type ImportStatus,
  notFound,
  parseWorkshopUrl,
  type Services,
  unprocessable,
} from "@modpack/contract";
import type { Db } from "../db/database.js";
import { notify } from "../db/notifications.js";
import type { ImportRow } from "../db/schema.js";
import { checkUserLimit, fairPriority, lockUserQueue } from "../user-limits.js";
import type { JobQueue } from "./ports.js";
import { IMPORT_QUEUE } from "./ports.js";

/** An import reads the workshop for a while: a refused caller should wait a little. */
const IMPORT_RETRY_AFTER_SECONDS = 30;

export interface ImportsDependencies {
  db: Db;
  jobs: JobQueue;
  /** How many imports one user may have pending or running (0: no bound). */
  maxPendingPerUser: number;
}

export function toImportStatus(row: ImportRow): ImportStatus {
  return {
    importId: row.id,
    status: row.status,
    platformUrl: row.platformUrl,
    modsImported: row.modsImported,
    modsFailed: row.modsFailed,
    progress: row.itemsTotal === null ? null : { done: row.itemsDone, total: row.itemsTotal },
    failures: row.failures ?? [],
    error: row.error,
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export function importsService(deps: ImportsDependencies): Services["imports"] {
  const { db, jobs } = deps;
  return {
    async start(caller, modpack, { platformUrl }) {
      const collectionId = parseWorkshopUrl(platformUrl);
      if (!collectionId) throw unprocessable("Not a Steam Workshop URL");
      try {
        const importId = await db.transaction().execute(async (trx) => {
          await lockUserQueue(trx, IMPORT_QUEUE, caller.userId);
          const { waiting } = await trx
            .selectFrom("imports")
            .select((eb) => eb.fn.countAll<number>().as("waiting"))
            .where("requestedBy", "=", caller.userId)
            .where("status", "in", ["pending", "running"])
            .executeTakeFirstOrThrow();
          checkUserLimit({
            count: Number(waiting),
            limit: deps.maxPendingPerUser,
            what: "imports pending or running",
            retryAfterSeconds: IMPORT_RETRY_AFTER_SECONDS,
          });
          const row = await trx
            .insertInto("imports")
            .values({
              modpackId: modpack.id,
              requestedBy: caller.userId,
              platformUrl,
              collectionId,
              itemsTotal: null,
              error: null,
              failures: "[]",
            })
            .returning("id")
            .executeTakeFirstOrThrow();
          // Grouped by requester: the workers run at most one import of a user at a time.
          await jobs.send(
            IMPORT_QUEUE,
            { importId: row.id },
            { db: trx, priority: fairPriority(Number(waiting)), group: { id: caller.userId } },
          );
          await notify(trx, {
            userId: caller.userId,
            title: "Import started",
            content: `Importing the workshop collection ${collectionId} into "${modpack.name}".`,
            type: "info",
            metadata: { modpackId: modpack.id, importId: row.id, collectionId },
          });
          return row.id;
        });
        return { message: "Import started", status: "pending", importId };
      } catch (error) {
        // A unique violation: the modpack's one pending or running import is there already.
        if ((error as { code?: unknown } | null)?.code === "23505")
          throw conflict("An import is already running for this modpack");
        throw error;
      }
    },

    async status(modpack) {
      const row = await db
        .selectFrom("imports")
        .selectAll()
        .where("modpackId", "=", modpack.id)
        .orderBy("createdAt", "desc")
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      if (!row) throw notFound("This modpack has no import");
      return toImportStatus(row);
    },
  };
}
