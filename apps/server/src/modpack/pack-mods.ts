import type { ExportConfiguration, GameVersion, Mod } from "@modpack/contract";
import type { ModRow } from "../db/schema.js";
import type { RenderMod } from "../server-file/render.js";
import { idsForBuild, type StoredBuildModIds } from "../workshop/description.js";

/*
 * A modpack's mods as its server file, its check and the catalogue's update read them: each mod's
 * in-game ids per game build, and the saved configuration that orders and selects them. Pure, and
 * importing no service, so the services sharing these pieces need not import each other.
 */

/** A mod's in-game ids for each game build (ids not qualified by a build belong to both). */
export function buildModIdsOf(row: Pick<ModRow, "platformModIds" | "modIdsB41" | "modIdsB42">): Mod["buildModIds"] {
  return { "41x": row.modIdsB41 ?? row.platformModIds, "42x": row.modIdsB42 ?? row.platformModIds };
}

/** A mod's catalogue columns as a modpack's history and the catalogue's change check read them. */
export type PackModColumns = Omit<PackMod, "buildModIds"> & Pick<ModRow, "modIdsB41" | "modIdsB42">;

/**
 * A pack mod from its catalogue row's columns: the per-build id columns become `buildModIds` as
 * they are, as `activeModsQuery` builds them. Built field by field: a large modpack's history makes
 * one per mod, and copying the row by spreads makes two.
 */
export function toPackMod(row: PackModColumns): PackMod {
  return {
    id: row.id,
    name: row.name,
    workshopId: row.workshopId,
    platformModIds: row.platformModIds,
    buildModIds: { "41x": row.modIdsB41, "42x": row.modIdsB42 },
    mapFolders: row.mapFolders,
    tags: row.tags,
    requiredWorkshopIds: row.requiredWorkshopIds,
    available: row.available,
  };
}

/** No ids: the custom ids of a mod that has none. */
const NO_IDS: readonly string[] = Object.freeze([]);

export type SavedConfiguration = { modsOrder: string[]; modConfig: ExportConfiguration["modConfig"] } | undefined;

/** An active mod of a modpack, with what the server file and the modpack check read of it. */
export interface PackMod extends RenderMod {
  /**
   * In-game ids per game build; a build's file and check read its own list when present, and
   * `platformModIds` when it is absent or null (a catalogue row's column with no list of the build).
   */
  buildModIds?: StoredBuildModIds;
  tags: string[];
  requiredWorkshopIds: string[];
  /** False when the last refresh found the item removed, private or delisted on the workshop. */
  available: boolean;
}

/** What the configuration has one mod write: its selected in-game ids and its custom ones. */
export interface ModSelection {
  /** The mod's own list (the same array) when nothing was saved for it. */
  selectedPlatformModIds: readonly string[];
  customPlatformModIds: readonly string[];
}

export interface EffectiveConfiguration {
  /** The modpack's active mods in the effective load order. */
  mods: PackMod[];
  /**
   * Each mod's selection, at the mod's position in `mods`: an array beside them rather than a record
   * by mod id, since a record of a large modpack's ids makes every id, fresh from the database, a
   * property name (which V8 interns) on every check and server file.
   */
  selections: ModSelection[];
}

/**
 * Whether an id is in a list: a search of the list when it is short (most mods name one to three
 * in-game ids, and searching a few beats building a Set for each mod of a large modpack), a Set when
 * it is long.
 */
export function idLookup(ids: readonly string[]): (id: string) => boolean {
  if (ids.length <= 8) return (id) => ids.includes(id);
  const set = new Set(ids);
  return (id) => set.has(id);
}

/** The ids of a list, each once, in the order of their first appearance (the list itself when it repeats none). */
export function distinctIds(ids: readonly string[]): readonly string[] {
  if (ids.length <= 1) return ids;
  if (ids.length > 8) return [...new Set(ids)];
  return ids.every((id, index) => ids.indexOf(id) === index)
    ? ids
    : ids.filter((id, index) => ids.indexOf(id) === index);
}

/** What one mod writes into a version's file: its selected ids for that version, then its custom ids. */
export function writtenIdsOf(mod: PackMod, selection: ModSelection, version: GameVersion) {
  const versionIds = idsForBuild(mod, version);
  const selectedIds = selection.selectedPlatformModIds;
  // A selection left as it was is the mod's own list, often the version's too: nothing to filter.
  const selected = selectedIds === versionIds ? versionIds : versionIds.filter(idLookup(selectedIds));
  return { versionIds, selected, custom: selection.customPlatformModIds };
}

/**
 * The configuration as it applies now: the saved order kept to the modpack's active mods, then
 * the active mods it does not mention in the order they were added; for every active mod the saved
 * selection kept to the mod's current in-game ids, or all of them (its own list) when nothing was
 * saved for it.
 */
export function applyConfiguration(active: PackMod[], saved: SavedConfiguration): EffectiveConfiguration {
  let ordered = active;
  if (saved && saved.modsOrder.length > 0) {
    const byId = new Map(active.map((mod) => [mod.id, mod]));
    const placed = new Set<string>();
    ordered = [];
    for (const id of saved.modsOrder) {
      const mod = byId.get(id);
      if (!mod || placed.has(id)) continue;
      placed.add(id);
      ordered.push(mod);
    }
    for (const mod of active) if (!placed.has(mod.id)) ordered.push(mod);
  }

  const selections = ordered.map((mod): ModSelection => {
    const selection = saved && Object.hasOwn(saved.modConfig, mod.id) ? saved.modConfig[mod.id] : undefined;
    if (!selection) return { selectedPlatformModIds: mod.platformModIds, customPlatformModIds: NO_IDS };
    return {
      selectedPlatformModIds: distinctIds(selection.selectedPlatformModIds ?? []).filter(idLookup(mod.platformModIds)),
      customPlatformModIds: selection.customPlatformModIds ?? NO_IDS,
    };
  });
  return { mods: ordered, selections };
}

/** The effective configuration as the API answers it: the load order, and each mod's selection by its id. */
export function exportConfigurationOf(effective: EffectiveConfiguration): ExportConfiguration {
  const modConfig: ExportConfiguration["modConfig"] = {};
  effective.mods.forEach((mod, position) => {
    const { selectedPlatformModIds, customPlatformModIds } = effective.selections[position]!;
    modConfig[mod.id] =
      customPlatformModIds.length > 0
        ? { selectedPlatformModIds: [...selectedPlatformModIds], customPlatformModIds: [...customPlatformModIds] }
        : { selectedPlatformModIds: [...selectedPlatformModIds] };
  });
  return { modsOrder: effective.mods.map((mod) => mod.id), modConfig };
}

/**
 * The renderer's input for one version: each mod's ids for that version with its custom ids after
 * them, and the selection to match (custom ids always selected).
 */
export function renderInputFor(
  effective: EffectiveConfiguration,
  version: GameVersion,
): { mods: RenderMod[]; selected: Record<string, string[]> } {
  const mods: RenderMod[] = [];
  const selected: Record<string, string[]> = {};
  for (const [position, mod] of effective.mods.entries()) {
    const written = writtenIdsOf(mod, effective.selections[position]!, version);
    const custom = written.custom.filter((id) => !written.versionIds.includes(id));
    mods.push({
      id: mod.id,
      name: mod.name,
      workshopId: mod.workshopId,
      mapFolders: mod.mapFolders,
      platformModIds: [...written.versionIds, ...custom],
    });
    selected[mod.id] = [...written.selected, ...custom];
  }
  return { mods, selected };
}
