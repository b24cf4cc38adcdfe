import {
  type Caller,
  conflict,
  type ExportConfiguration,
  type ExportStatus,
  notFound,
  type Services,
  unprocessable,
} from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ExportRow } from "../db/schema.js";
import type { Jobs } from "../jobs/boss.js";
import { EXPORT_QUEUE } from "../jobs/queues.js";
import type { RenderMod } from "../server-file/render.js";
import { createNotifications } from "./notifications.js";

export interface ExportsDependencies {
  db: Db;
  jobs: Jobs;
  modpacks: Services["modpacks"];
  /** The service's external base URL, for `downloadUrl`. */
  publicUrl: string;
}

/** What `loadDownload` needs: who may read a modpack. */
export type DownloadDependencies = Pick<ExportsDependencies, "db" | "modpacks">;

type SavedConfiguration = { modsOrder: string[]; modConfig: ExportConfiguration["modConfig"] } | undefined;

export interface EffectiveConfiguration {
  configuration: ExportConfiguration;
  /** The modpack's active mods in the effective load order. */
  mods: RenderMod[];
}

/** The modpack's active mods in the order they were added (re-adding a removed mod moves it last). */
function activeModsQuery(db: Db, modpackId: string) {
  return db
    .selectFrom("modpackMods as link")
    .innerJoin("mods", "mods.id", "link.modId")
    .select(["mods.id", "mods.name", "mods.workshopId", "mods.platformModIds", "mods.mapFolders"])
    .where("link.modpackId", "=", modpackId)
    .where("link.isActive", "=", true)
    .orderBy("link.addedAt")
    .orderBy("link.id");
}

/**
 * The configuration as it applies now: the saved order kept to the modpack's active mods, then
 * the active mods it does not mention in the order they were added; for every active mod the saved
 * selection kept to the mod's current in-game ids, or all of them when nothing was saved for it.
 */
function applyConfiguration(active: RenderMod[], saved: SavedConfiguration): EffectiveConfiguration {
  const byId = new Map(active.map((mod) => [mod.id, mod]));
  const ordered: RenderMod[] = [];
  const placed = new Set<string>();
  for (const id of saved?.modsOrder ?? []) {
    const mod = byId.get(id);
    if (!mod || placed.has(id)) continue;
    placed.add(id);
    ordered.push(mod);
  }
  for (const mod of active) if (!placed.has(mod.id)) ordered.push(mod);

  const modConfig: ExportConfiguration["modConfig"] = {};
  for (const mod of ordered) {
    const selection = saved && Object.hasOwn(saved.modConfig, mod.id) ? saved.modConfig[mod.id] : undefined;
    const own = new Set(mod.platformModIds);
    modConfig[mod.id] = {
      selectedPlatformModIds: selection
        ? [...new Set(selection.selectedPlatformModIds)].filter((id) => own.has(id))
        : [...mod.platformModIds],
    };
  }
  return { configuration: { modsOrder: ordered.map((mod) => mod.id), modConfig }, mods: ordered };
}

/** The modpack's effective export configuration and its mods in load order, in two queries. */
export async function loadEffectiveConfiguration(db: Db, modpackId: string): Promise<EffectiveConfiguration> {
  const [active, saved] = await Promise.all([
    activeModsQuery(db, modpackId).execute(),
    db
      .selectFrom("exportConfigurations")
      .select(["modsOrder", "modConfig"])
      .where("modpackId", "=", modpackId)
      .executeTakeFirst(),
  ]);
  return applyConfiguration(
    active,
    saved ? { modsOrder: saved.modsOrder, modConfig: saved.modConfig ?? {} } : undefined,
  );
}

/** Each mod's selected in-game ids, as `renderServerFile` takes them. */
export function selectionOf(configuration: ExportConfiguration): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(configuration.modConfig).map(([id, config]) => [id, config.selectedPlatformModIds]),
  );
}

function toExportStatus(row: ExportRow, publicUrl: string): ExportStatus {
  return {
    exportId: row.id,
    modpackId: row.modpackId,
    version: row.version,
    status: row.status,
    fileName: row.fileName,
    downloadUrl: row.status === "completed" ? `${publicUrl}/modpacks/export/${row.id}/download` : null,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
  };
}

/** Loads an export the caller may see: its requester always, anyone else if they may read the modpack. */
async function loadVisibleExport(deps: DownloadDependencies, caller: Caller, exportId: string): Promise<ExportRow> {
  const row = await deps.db.selectFrom("exports").selectAll().where("id", "=", exportId).executeTakeFirst();
  if (!row) throw notFound("Export not found");
  if (row.requestedBy !== caller.userId) await deps.modpacks.authorize(caller, row.modpackId, "read");
  return row;
}

/** The file of a completed export, for the download route; 409 while it is not ready or when it failed. */
export async function loadDownload(
  deps: DownloadDependencies,
  caller: Caller,
  exportId: string,
): Promise<{ fileName: string; content: string }> {
  const row = await loadVisibleExport(deps, caller, exportId);
  if (row.status === "failed") throw conflict(`The file could not be generated: ${row.error ?? "unknown error"}`);
  if (row.status !== "completed" || row.content === null || row.fileName === null) {
    throw conflict("The file is not ready yet");
  }
  return { fileName: row.fileName, content: row.content };
}

/**
 * Export configurations and server-file exports. The `ModpackAccess` the configuration and request
 * methods get has already passed the procedure's resource rule (read, configure).
 */
export function exportsService(deps: ExportsDependencies): Services["exports"] {
  const { db, jobs, publicUrl } = deps;

  return {
    async getConfiguration(modpack) {
      return (await loadEffectiveConfiguration(db, modpack.id)).configuration;
    },

    async saveConfiguration(caller, modpack, input) {
      const active = await activeModsQuery(db, modpack.id).execute();
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
      await db
        .insertInto("exportConfigurations")
        .values({
          modpackId: modpack.id,
          modsOrder: saved.modsOrder,
          modConfig: JSON.stringify(saved.modConfig),
          updatedBy: caller.userId,
          updatedAt: sql<Date>`now()`,
        })
        .onConflict((onConflict) =>
          onConflict.column("modpackId").doUpdateSet((eb) => ({
            modsOrder: eb.ref("excluded.modsOrder"),
            modConfig: eb.ref("excluded.modConfig"),
            updatedBy: eb.ref("excluded.updatedBy"),
            updatedAt: sql<Date>`now()`,
          })),
        )
        .execute();
      return applyConfiguration(active, saved).configuration;
    },

    async request(caller, modpack, version) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto("exports")
          .values({ modpackId: modpack.id, requestedBy: caller.userId, version })
          .returning("id")
          .executeTakeFirstOrThrow();
        await jobs.send(EXPORT_QUEUE, { exportId: row.id }, { db: trx });
        await createNotifications(trx, [
          {
            userId: caller.userId,
            title: "Server file generation started",
            content: `The ${version} server file of "${modpack.name}" is being generated.`,
            type: "info",
            metadata: { modpackId: modpack.id, exportId: row.id, version },
          },
        ]);
        return { exportId: row.id, status: "pending" as const };
      });
    },

    async get(caller, exportId) {
      return toExportStatus(await loadVisibleExport(deps, caller, exportId), publicUrl);
    },
  };
}
