/**
 * Renders the mod section of a Project Zomboid server `.ini` file for a modpack.
 * Pure functions only: no I/O, no clock access (the generation time is an input).
 */

import { commentText, partitionValues, type UnsafeReason } from "./safe-text.js";

export type GameVersion = "41x" | "42x";

/** How a 42x `Mods=` names a mod: `\ModID`, `WorkshopID\ModID` or the bare `ModID`. */
export type IdForm = "backslash" | "workshop" | "plain";

export interface RenderMod {
  id: string;
  name: string;
  workshopId: string;
  /** The in-game ids the mod offers for the file's game version. */
  platformModIds: string[];
  mapFolders: string[];
}

export interface RenderInput {
  modpack: { id: string; name: string };
  /**
   * The revision a pinned file is rendered from: the header names it instead of the modpack's name,
   * which may change while the revision's bytes may not.
   */
  revision?: number | undefined;
  version: GameVersion;
  /** 42x only: how `Mods=` names each mod (`backslash` when left out). Build 41 writes bare ids. */
  idForm?: IdForm | undefined;
  /**
   * When the file was generated, written in the header. Left out for a file that must be the same
   * bytes whenever the modpack is the same (the current file a start script fetches).
   */
  generatedAt?: Date | undefined;
  /** Mods in the configured load order. */
  mods: RenderMod[];
  /** Mod id -> selected in-game ids. An absent key means all of the mod's ids for the version are selected. */
  selected: Record<string, string[]>;
  /** Defaults to "Modpack Collection Service". */
  serviceName?: string;
  /** Extra `#` lines after the generation time, one per entry (blank ones are skipped). */
  comments?: string[];
}

/** The values of the three mod lines, as the file writes them (42x ids in the file's id form). */
export interface ServerFileLines {
  mods: string[];
  workshopItems: string[];
  /** The mods' map folders, then `Muldraugh, KY` last. */
  map: string[];
}

/** A value the renderer refused to write. */
export interface RenderRejection {
  /** `RenderMod.id` of the mod the value belongs to. */
  modId: string;
  field: "platformModId" | "workshopId" | "mapFolder";
  /** The value, printable (line-breaking characters escaped) and cut to 100 characters. */
  value: string;
  reason: UnsafeReason;
}

const DEFAULT_SERVICE_NAME = "Modpack Collection Service";
/** The base game's map, always last on `Map=`. */
export const BASE_MAP = "Muldraugh, KY";
const SLUG_MAX_LENGTH = 60;
const SLUG_FALLBACK = "modpack";

/** Combining marks left behind by NFKD decomposition. */
const COMBINING_MARKS = /\p{M}/gu;
const NON_SLUG_RUN = /[^a-z0-9]+/g;
const EDGE_DASHES = /^-+|-+$/g;

/**
 * Renders the mod section of a server file and reports every value it refused, in file order.
 * Values (in-game ids, workshop ids, map folders) must pass the server-file rule (no control
 * characters, line separators, `;` or `=`, bounded length); text of the `#` header loses its
 * line-breaking characters by the same rule. So nothing taken from the workshop or a user can add a
 * line to the file.
 */
export function renderServerFileWithReport(input: RenderInput): {
  content: string;
  /** The `#` header lines, in order. */
  header: string[];
  lines: ServerFileLines;
  rejected: RenderRejection[];
} {
  const form: IdForm = input.version === "42x" ? (input.idForm ?? "backslash") : "plain";
  // Sets keep the first occurrence of a value, in insertion order.
  const modIds = new Set<string>();
  const workshopIds = new Set<string>();
  const mapFolders = new Set<string>();
  const rejected: RenderRejection[] = [];
  const refuse = (mod: RenderMod, field: RenderRejection["field"], values: ReturnType<typeof partitionValues>) => {
    for (const { value, reason } of values.rejected) rejected.push({ modId: mod.id, field, value, reason });
    return values.usable;
  };

  for (const mod of input.mods) {
    const own = refuse(mod, "platformModId", partitionValues(mod.platformModIds));
    const chosen = Object.hasOwn(input.selected, mod.id)
      ? new Set((input.selected[mod.id] ?? []).map((id) => id.trim()))
      : undefined;
    const ids = chosen === undefined ? own : own.filter((id) => chosen.has(id));
    if (ids.length === 0) continue;

    const workshopId = refuse(mod, "workshopId", partitionValues([mod.workshopId]))[0];
    // The workshop form names the item too, so one id shipped by two items is two entries; a mod
    // whose workshop id is refused cannot be named that way and is left out.
    if (form === "workshop" && workshopId === undefined) continue;
    for (const id of ids)
      modIds.add(form === "workshop" ? `${workshopId}\\${id}` : form === "backslash" ? `\\${id}` : id);
    if (workshopId !== undefined) workshopIds.add(workshopId);
    for (const folder of refuse(mod, "mapFolder", partitionValues(mod.mapFolders))) {
      if (folder !== BASE_MAP) mapFolders.add(folder);
    }
  }
  mapFolders.add(BASE_MAP);

  const serviceName = commentText(input.serviceName ?? DEFAULT_SERVICE_NAME) || DEFAULT_SERVICE_NAME;
  const comments = (input.comments ?? []).map(commentText).filter((comment) => comment !== "");

  const header = [
    `# ${serviceName}`,
    input.revision === undefined
      ? `# Modpack: ${commentText(input.modpack.name)} (${commentText(input.modpack.id)})`
      : `# Modpack: ${commentText(input.modpack.id)} at revision ${input.revision}`,
    `# Game version: ${input.version}`,
    ...(input.generatedAt ? [`# Generated: ${input.generatedAt.toISOString()}`] : []),
    ...comments.map((comment) => `# ${comment}`),
  ];
  const lines: ServerFileLines = {
    mods: [...modIds],
    workshopItems: [...workshopIds],
    map: [...mapFolders],
  };
  const content = [
    ...header,
    `Mods=${lines.mods.join(";")}`,
    `WorkshopItems=${lines.workshopItems.join(";")}`,
    `Map=${lines.map.join(";")}`,
  ];
  return { content: `${content.join("\n")}\n`, header, lines, rejected };
}

/** The server file's text; `renderServerFileWithReport` also says which values were refused. */
export function renderServerFile(input: RenderInput): string {
  return renderServerFileWithReport(input).content;
}

export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(COMBINING_MARKS, "")
    .replace(NON_SLUG_RUN, "-")
    .replace(EDGE_DASHES, "")
    .slice(0, SLUG_MAX_LENGTH)
    .replace(EDGE_DASHES, "");
  return slug === "" ? SLUG_FALLBACK : slug;
}

/** File name for a downloaded server file: `<slug>-<version>.ini`. */
export function exportFileName(modpackName: string, version: GameVersion): string {
  return `${slugify(modpackName)}-${version}.ini`;
}
