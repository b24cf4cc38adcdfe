import { sql } from "kysely";
import type { Job, JobResult } from "pg-boss";
import type { Db } from "../db/database.js";
import { loadEffectiveConfiguration } from "../db/export-configurations.js";
import { checkConfiguration } from "../db/modpack-check.js";
import { notify } from "../db/notifications.js";
import { publishExportFinished } from "../db/webhooks.js";
import { headerLines } from "../modpack/check.js";
import { renderInputFor } from "../modpack/pack-mods.js";
import { exportFileName, renderServerFileWithReport } from "../server-file/render.js";
import { EXPORT_QUEUE, type JobQueue } from "../services/ports.js";
import type { JobDefinition } from "./boss.js";

export const EXPORT_DEAD_LETTER_QUEUE = `${EXPORT_QUEUE}.dead`;

const RETRY_LIMIT = 2;
const ATTEMPTS = RETRY_LIMIT + 1;

interface ExportJobData {
  exportId: string;
}

type ExportDependencies = { db: Db; jobs: Pick<JobQueue, "send"> };

/**
 * Marks an export failed and tells its requester, in one transaction, then its webhooks. An export
 * that already completed or failed is left alone (and nobody is notified twice); answers whether it changed.
 */
async function failExport(deps: ExportDependencies, exportId: string, reason: string): Promise<boolean> {
  const failed = await deps.db.transaction().execute(async (trx) => {
    const failed = await trx
      .updateTable("exports")
      .set({ status: "failed", error: reason, finishedAt: sql<Date>`now()` })
      .where("id", "=", exportId)
      .where("status", "in", ["pending", "running"])
      .returning(["modpackId", "requestedBy", "version"])
      .executeTakeFirst();
    if (!failed) return false;
    await notify(trx, {
      userId: failed.requestedBy,
      title: "Server file generation failed",
      content: `The ${failed.version} server file could not be generated: ${reason}`,
      type: "error",
      metadata: { modpackId: failed.modpackId, exportId, version: failed.version },
    });
    return true;
  });
  if (failed) await publishExportFinished(deps, exportId);
  return failed;
}

async function runExport(deps: ExportDependencies, job: Job<ExportJobData>): Promise<object> {
  const { db } = deps;
  const { exportId } = job.data;
  // Claims the export; one that completed or failed (or was deleted with its modpack) is skipped,
  // so a retried or repeated job does the work at most once.
  const claimed = await db
    .updateTable("exports")
    .set({ status: "running" })
    .where("id", "=", exportId)
    .where("status", "in", ["pending", "running"])
    .returning(["modpackId", "requestedBy", "version"])
    .executeTakeFirst();
  if (!claimed) return { exportId, skipped: true };

  try {
    const [modpack, effective] = await Promise.all([
      db.selectFrom("modpacks").select(["id", "name"]).where("id", "=", claimed.modpackId).executeTakeFirstOrThrow(),
      loadEffectiveConfiguration(db, claimed.modpackId),
    ]);
    const check = await checkConfiguration(db, effective, claimed.version);
    const findings = check.findings.filter((finding) => finding.severity !== "info");
    // Values the server-file rule refuses never reach the file; the job's recorded output names them.
    const { content, rejected } = renderServerFileWithReport({
      modpack,
      version: claimed.version,
      generatedAt: new Date(),
      ...renderInputFor(effective, claimed.version),
      comments: headerLines(findings),
    });
    const fileName = exportFileName(modpack.name, claimed.version);
    const completed = await db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable("exports")
        .set({
          status: "completed",
          content,
          fileName,
          error: null,
          findings: JSON.stringify(findings),
          finishedAt: sql<Date>`now()`,
        })
        .where("id", "=", exportId)
        .where("status", "=", "running")
        .returning("id")
        .executeTakeFirst();
      if (!done) return false;
      await notify(trx, {
        userId: claimed.requestedBy,
        title: "Server file ready",
        content: `The ${claimed.version} server file of "${modpack.name}" is ready to download.`,
        type: "success",
        metadata: { modpackId: modpack.id, exportId, version: claimed.version },
      });
      return true;
    });
    if (completed) await publishExportFinished(deps, exportId);
    return { exportId, completed, mods: effective.mods.length, rejected };
  } catch (error) {
    // On the last attempt the requester hears of it now; pg-boss still records the failure (and
    // hands the job to the dead-letter queue, whose handler then finds the export already failed).
    if (job.retryCount >= RETRY_LIMIT) await failExport(deps, exportId, `generation failed after ${ATTEMPTS} attempts`);
    throw error;
  }
}

/** Renders a requested server file, stores it on the export and notifies the requester. */
export function exportJob(deps: { db: Db }): JobDefinition<ExportJobData> {
  return {
    queue: EXPORT_QUEUE,
    options: { retryLimit: RETRY_LIMIT, retryDelay: 1, expireInSeconds: 60, deadLetter: EXPORT_DEAD_LETTER_QUEUE },
    // A send wakes the workers at once (the queue notifies); a backlog is fetched two at a time,
    // back to back while the fetches come back full, by three workers per instance, so a job
    // queued behind a backlog waits for at most a couple of renders. Each job settles on its own:
    // one failing export does not retry the others of its batch.
    work: {
      pollingIntervalSeconds: 0.5,
      batchSize: 2,
      burstWhenBatchFull: true,
      localConcurrency: 3,
      perJobResults: true,
    },
    async handle(jobs, queue): Promise<JobResult[]> {
      const results: JobResult[] = [];
      for (const job of jobs) {
        try {
          results.push({ id: job.id, status: "completed", output: await runExport({ db: deps.db, jobs: queue }, job) });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          results.push({ id: job.id, status: "failed", output: { message } });
        }
      }
      return results;
    },
  };
}

/**
 * Exports whose job gave up (every attempt failed, or timed out): marks them failed and notifies
 * the requester, unless that already happened. Its queue must be created before the export queue.
 */
export function exportDeadLetterJob(deps: { db: Db }): JobDefinition<ExportJobData> {
  return {
    queue: EXPORT_DEAD_LETTER_QUEUE,
    options: { retryLimit: 5, retryDelay: 5, expireInSeconds: 60 },
    async handle(jobs, queue) {
      const results = [];
      for (const { data } of jobs) {
        const reason = `generation did not finish after ${ATTEMPTS} attempts`;
        const failed = await failExport({ db: deps.db, jobs: queue }, data.exportId, reason);
        results.push({ exportId: data.exportId, failed });
      }
      return results;
    },
  };
}
