import {
  type Caller,
  conflict,
  type ExportStatus,
  type GameVersion,
  notFound,
  type Services,
  unprocessable,
} from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { activeModsQuery, loadEffectiveConfiguration, saveExportConfiguration } from "../db/export-configurations.js";
import { recordRevision } from "../db/modpack-revisions.js";
import { notify } from "../db/notifications.js";
import type { ExportRow } from "../db/schema.js";
import { announceModpackChanged } from "../db/webhooks.js";
import { applyConfiguration, exportConfigurationOf } from "../modpack/pack-mods.js";
import { checkUserLimit, fairPriority, lockUserQueue } from "../user-limits.js";
import type { JobQueue } from "./ports.js";
import { EXPORT_QUEUE } from "./ports.js";

export interface ExportsDependencies {
  db: Db;
  jobs: JobQueue;
  modpacks: Services["modpacks"];
  /** Where a completed export's file is downloaded from: the download route builds the URL. */
  downloadUrl: (exportId: string) => string;
  /** How many server files one user may have pending or running (0: no bound). */
  maxPendingPerUser: number;
  /** How long after a modpack's first change its `modpack.changed` event is sent. */
  changedWindowSeconds: number;
}

/** A server file takes well under a second to render: a refused caller may try again soon. */
const EXPORT_RETRY_AFTER_SECONDS = 2;
/**
 * A pending export this old has lost its job (a queued one waits seconds, not minutes): it neither
 * answers an identical request nor counts against the requester's bound.
 */
const STALE_PENDING = sql<Date>`now() - interval '15 minutes'`;

/** What `findDownload` needs: who may read a modpack. */
export type DownloadDependencies = Pick<ExportsDependencies, "db" | "modpacks">;

function toExportStatus(row: Omit<ExportRow, "content">, downloadUrl: (exportId: string) => string): ExportStatus {
  return {
    exportId: row.id,
    modpackId: row.modpackId,
    version: row.version,
    status: row.status,
    fileName: row.fileName,
    downloadUrl: row.status === "completed" ? downloadUrl(row.id) : null,
    error: row.error,
    findings: row.findings,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

/** Rolls back a request that turned out to repeat one committed meanwhile, answering that one. */
class AlreadyRequested extends Error {
  constructor(readonly exportId: string) {
    super(`export ${exportId} was requested meanwhile`);
  }
}

/** Loads an export the caller may see: its requester always, anyone else if they may read the modpack. */
async function loadVisibleExport(deps: DownloadDependencies, caller: Caller, exportId: string) {
  const row = await deps.db
    .selectFrom("exports")
    .select([
      "id",
      "modpackId",
      "requestedBy",
      "version",
      "status",
      "fileName",
      "error",
      "findings",
      "createdAt",
      "finishedAt",
    ])
    .where("id", "=", exportId)
    .executeTakeFirst();
  if (!row) throw notFound("Export not found");
  // A token limited to modpacks sees its user's exports of those modpacks only.
  if (row.requestedBy !== caller.userId || caller.modpackIds) {
    await deps.modpacks.authorize(caller, row.modpackId, "read");
  }
  return row;
}

export interface ServerFile {
  fileName: string;
  modpackName: string;
  version: GameVersion;
  content: string;
}

/**
 * A completed export the caller may download, without its file: `validator` names the file's
 * content (a completed export's file never changes), and `file()` reads it. 409 while it is not
 * ready or when it failed.
 */
export async function findDownload(
  deps: DownloadDependencies,
  caller: Caller,
  exportId: string,
): Promise<{ validator: string; file(): Promise<ServerFile> }> {
  const row = await loadVisibleExport(deps, caller, exportId);
  if (row.status === "failed") throw conflict(`The file could not be generated: ${row.error ?? "unknown error"}`);
  const { fileName, finishedAt } = row;
  if (row.status !== "completed" || fileName === null) throw conflict("The file is not ready yet");
  return {
    validator: `${row.id}.${finishedAt?.getTime() ?? 0}`,
    async file() {
      const found = await deps.db
        .selectFrom("exports")
        .innerJoin("modpacks", "modpacks.id", "exports.modpackId")
        .select(["exports.content", "modpacks.name"])
        .where("exports.id", "=", exportId)
        .executeTakeFirst();
      if (!found || found.content === null) throw notFound("Export not found");
      return { fileName, modpackName: found.name, version: row.version, content: found.content };
    },
  };
}

/**
 * Export configurations and server-file exports. The `ModpackAccess` the configuration and request
 * methods get has already passed the procedure's resource rule (read, configure).
 */
export function exportsService(deps: ExportsDependencies): Services["exports"] {
  const { db, jobs, downloadUrl } = deps;

  return {
    async getConfiguration(modpack) {
      return exportConfigurationOf(await loadEffectiveConfiguration(db, modpack.id));
    },

    async saveConfiguration(caller, modpack, input) {
      const active = (await activeModsQuery(db, [modpack.id]).executeTakeFirst())?.mods ?? [];
      const byId = new Map(active.map((mod) => [mod.id, mod]));
      for (const id of [...input.modsOrder, ...Object.keys(input.modConfig)]) {
        if (!byId.has(id)) throw unprocessable(`Mod ${id} is not an active mod of this modpack`);
      }
      for (const [id, config] of Object.entries(input.modConfig)) {
        const own = new Set(byId.get(id)?.platformModIds);
        const stranger = config.selectedPlatformModIds.find((platformModId) => !own.has(platformModId));
        if (stranger !== undefined) throw unprocessable(`"${stranger}" is not an in-game id of mod ${id}`);
      }
      const saved = { modsOrder: input.modsOrder, modConfig: input.modConfig };
      await db.transaction().execute(async (trx) => {
        await saveExportConfiguration(trx, modpack.id, saved, caller.userId);
        await recordRevision(trx, modpack.id, {
          reason: "configuration",
          authorId: caller.userId,
          announce: announceModpackChanged({ jobs, windowSeconds: deps.changedWindowSeconds }),
        });
      });
      return exportConfigurationOf(applyConfiguration(active, saved));
    },

    async request(caller, modpack, { version }) {
      /** The caller's exports still to be rendered, newest first (without `except`, this request's own). */
      const waitingOf = (executor: Db, except?: string) => {
        let query = executor
          .selectFrom("exports")
          .select(["id", "modpackId", "version", "status"])
          .where("requestedBy", "=", caller.userId)
          .where("status", "in", ["pending", "running"])
          .where("createdAt", ">", STALE_PENDING);
        if (except) query = query.where("id", "!=", except);
        return query.orderBy("createdAt", "desc").execute();
      };
      /**
       * The same request already waiting (a pending export renders the configuration saved when
       * it runs, so it gives the same file), or 429 past the caller's bound, or null to go ahead.
       */
      const decide = (waiting: Awaited<ReturnType<typeof waitingOf>>) => {
        const same = waiting.find(
          (row) => row.status === "pending" && row.modpackId === modpack.id && row.version === version,
        );
        if (same) return { exportId: same.id, status: "pending" as const };
        checkUserLimit({
          count: waiting.length,
          limit: deps.maxPendingPerUser,
          what: "server files being generated",
          retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS,
        });
        return null;
      };

      // Decided once before writing anything, and again under the caller's lock once this request's
      // rows are written: concurrent requests of one user are counted (and ranked) exactly, yet
      // hold the lock only for that last check and the job's insert.
      const early = decide(await waitingOf(db));
      if (early) return early;
      try {
        return await db.transaction().execute(async (trx) => {
          const row = await trx
            .insertInto("exports")
            .values({ modpackId: modpack.id, requestedBy: caller.userId, version })
            .returning("id")
            .executeTakeFirstOrThrow();
          await notify(trx, {
            userId: caller.userId,
            title: "Server file generation started",
            content: `The ${version} server file of "${modpack.name}" is being generated.`,
            type: "info",
            metadata: { modpackId: modpack.id, exportId: row.id, version },
          });
          await lockUserQueue(trx, EXPORT_QUEUE, caller.userId);
          const before = await waitingOf(trx, row.id);
          const existing = decide(before);
          if (existing) throw new AlreadyRequested(existing.exportId);
          await jobs.send(EXPORT_QUEUE, { exportId: row.id }, { db: trx, priority: fairPriority(before.length) });
          return { exportId: row.id, status: "pending" as const };
        });
      } catch (error) {
        if (error instanceof AlreadyRequested) return { exportId: error.exportId, status: "pending" as const };
        throw error;
      }
    },

    async get(caller, { exportId }) {
      return toExportStatus(await loadVisibleExport(deps, caller, exportId), downloadUrl);
    },
  };
}
