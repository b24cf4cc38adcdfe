import { sql } from "kysely";
import {
  applyConfiguration,
  type EffectiveConfiguration,
  type PackMod,
  type SavedConfiguration,
} from "../modpack/pack-mods.js";
import type { Db } from "./database.js";

/** A modpack's saved export configuration: its load order and each mod's selection. */
export interface SavedExportConfiguration {
  modsOrder: string[];
  modConfig: Record<string, { selectedPlatformModIds: string[]; customPlatformModIds?: string[] }>;
}

/** Writes a modpack's export configuration, replacing the one it had, as saved by `userId`. */
export async function saveExportConfiguration(
  db: Db,
  modpackId: string,
  saved: SavedExportConfiguration,
  userId: string,
): Promise<void> {
  await db
    .insertInto("exportConfigurations")
    .values({
      modpackId,
      modsOrder: saved.modsOrder,
      modConfig: JSON.stringify(saved.modConfig),
      updatedBy: userId,
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
}

/**
 * The active mods of modpacks, each modpack's as one JSON array of pack mods in the order they were
 * added (re-adding a removed mod moves it last). pg parses a modpack's mods with one `JSON.parse`
 * into the objects the check and the server file read, and the CamelCasePlugin maps one row,
 * instead of copying a row and six arrays for every mod, which a large modpack's check feels.
 * `buildModIds` carries the catalogue's per-build columns as they are (null where a mod has no list
 * of that build), where `idsForBuild` falls back to `platformModIds`.
 */
export function activeModsQuery(db: Db, modpackIds: string[]) {
  return db
    .selectFrom("modpackMods as link")
    .innerJoin("mods", "mods.id", "link.modId")
    .select([
      "link.modpackId",
      sql<PackMod[]>`json_agg(json_build_object(
        'id', mods.id, 'name', mods.name, 'workshopId', mods.workshop_id, 'platformModIds', mods.platform_mod_ids,
        'buildModIds', json_build_object('41x', mods.mod_ids_b41, '42x', mods.mod_ids_b42),
        'mapFolders', mods.map_folders, 'tags', mods.tags, 'requiredWorkshopIds', mods.required_workshop_ids,
        'available', mods.is_active
      ) order by link.added_at, link.id)`.as("mods"),
    ])
    .where("link.modpackId", "in", modpackIds)
    .where("link.isActive", "=", true)
    .groupBy("link.modpackId");
}

/** The modpack's effective export configuration and its mods in load order, in two queries. */
export async function loadEffectiveConfiguration(db: Db, modpackId: string): Promise<EffectiveConfiguration> {
  const { active, saved } = (await loadModpackMods(db, [modpackId])).get(modpackId)!;
  return applyConfiguration(active, saved);
}

/** The active mods (in the order they were added) and saved configuration of several modpacks, in two queries. */
export async function loadModpackMods(
  db: Db,
  modpackIds: string[],
): Promise<Map<string, { active: PackMod[]; saved: SavedConfiguration }>> {
  const loaded = new Map<string, { active: PackMod[]; saved: SavedConfiguration }>();
  if (modpackIds.length === 0) return loaded;
  const [rows, saved] = await Promise.all([
    activeModsQuery(db, modpackIds).execute(),
    db
      .selectFrom("exportConfigurations")
      .select(["modpackId", "modsOrder", "modConfig"])
      .where("modpackId", "in", modpackIds)
      .execute(),
  ]);
  for (const id of modpackIds) loaded.set(id, { active: [], saved: undefined });
  for (const row of rows) {
    const entry = loaded.get(row.modpackId);
    if (entry) entry.active = row.mods;
  }
  for (const row of saved) {
    const entry = loaded.get(row.modpackId);
    if (entry) entry.saved = { modsOrder: row.modsOrder, modConfig: row.modConfig ?? {} };
  }
  return loaded;
}
