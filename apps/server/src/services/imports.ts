import {
  conflict,
  type ImportStatus,
  notFound,
  parseWorkshopUrl,
  type Services,
  unprocessable,
} from "@modpack/contract";
import type { Db } from "../db/database.js";
import type { ImportRow } from "../db/schema.js";
import type { Jobs } from "../jobs/boss.js";
import { IMPORT_QUEUE } from "../jobs/queues.js";
import { createNotifications } from "./notifications.js";

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

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}

export function importsService(deps: { db: Db; jobs: Jobs }): Services["imports"] {
  const { db, jobs } = deps;
  return {
    async start(caller, modpack, platformUrl) {
      const collectionId = parseWorkshopUrl(platformUrl);
      if (!collectionId) throw unprocessable("Not a Steam Workshop URL");
      try {
        const importId = await db.transaction().execute(async (trx) => {
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
          await jobs.send(IMPORT_QUEUE, { importId: row.id }, { db: trx });
          await createNotifications(trx, [
            {
              userId: caller.userId,
              title: "Import started",
              content: `Importing the workshop collection ${collectionId} into "${modpack.name}".`,
              type: "info",
              metadata: { modpackId: modpack.id, importId: row.id, collectionId },
            },
          ]);
          return row.id;
        });
        return { message: "Import started", status: "pending", importId };
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict("An import is already running for this modpack");
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
