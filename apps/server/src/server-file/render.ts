/**
 * Renders the mod section of a Project Zomboid server `.ini` file for a modpack.
 * Pure functions only: no I/O, no clock access (the generation time is an input).
 */

export type GameVersion = "41x" | "42x";

export interface RenderMod {
  id: string;
  name: string;
  workshopId: string;
  platformModIds: string[];
  mapFolders: string[];
}

export interface RenderInput {
  modpack: { id: string; name: string };
  version: GameVersion;
  generatedAt: Date;
  /** Mods in the configured load order. */
  mods: RenderMod[];
  /** Mod id -> selected in-game ids. An absent key means all of the mod's platformModIds are selected. */
  selected: Record<string, string[]>;
  /** Defaults to "Modpack Collection Service". */
  serviceName?: string;
}

const DEFAULT_SERVICE_NAME = "Modpack Collection Service";
const BASE_MAP = "Muldraugh, KY";
const SLUG_MAX_LENGTH = 60;
const SLUG_FALLBACK = "modpack";

/** Control characters (C0, DEL, C1) plus the Unicode line and paragraph separators. */
const HEADER_UNSAFE = /[\p{Cc}\u2028\u2029]/gu;
/** Characters that would break a `key=a;b;c` line. */
const VALUE_UNSAFE = /[;\r\n]/;
/** Combining marks left behind by NFKD decomposition. */
const COMBINING_MARKS = /\p{M}/gu;
const NON_SLUG_RUN = /[^a-z0-9]+/g;
const EDGE_DASHES = /^-+|-+$/g;

/** Removes control characters so user text cannot start a new line inside a `#` comment. */
function headerText(value: string): string {
  return value.replace(HEADER_UNSAFE, "").trim();
}

/** Trims a list value; returns undefined when it is empty or contains `;`, CR or LF. */
function cleanValue(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === "" || VALUE_UNSAFE.test(trimmed)) return undefined;
  return trimmed;
}

/** Collects values in insertion order, ignoring repeats (first occurrence wins). */
class OrderedSet {
  private readonly seen = new Set<string>();
  readonly values: string[] = [];

  add(value: string): void {
    if (this.seen.has(value)) return;
    this.seen.add(value);
    this.values.push(value);
  }
}

/** The mod's valid in-game ids that are selected, in the mod's own order. */
function selectedIds(mod: RenderMod, selected: Record<string, string[]>): string[] {
  const own = mod.platformModIds.map(cleanValue).filter((id): id is string => id !== undefined);
  if (!Object.hasOwn(selected, mod.id)) return own;
  const chosen = new Set((selected[mod.id] ?? []).map((id) => id.trim()));
  return own.filter((id) => chosen.has(id));
}

export function renderServerFile(input: RenderInput): string {
  const modIds = new OrderedSet();
  const workshopIds = new OrderedSet();
  const mapFolders = new OrderedSet();

  for (const mod of input.mods) {
    const ids = selectedIds(mod, input.selected);
    if (ids.length === 0) continue;

    for (const id of ids) modIds.add(id);

    const workshopId = cleanValue(mod.workshopId);
    if (workshopId !== undefined) workshopIds.add(workshopId);

    for (const folder of mod.mapFolders) {
      const cleaned = cleanValue(folder);
      if (cleaned !== undefined && cleaned !== BASE_MAP) mapFolders.add(cleaned);
    }
  }
  mapFolders.add(BASE_MAP);

  const prefix = input.version === "42x" ? "\\" : "";
  const serviceName = headerText(input.serviceName ?? DEFAULT_SERVICE_NAME) || DEFAULT_SERVICE_NAME;

  const lines = [
    `# ${serviceName}`,
    `# Modpack: ${headerText(input.modpack.name)} (${headerText(input.modpack.id)})`,
    `# Game version: ${input.version}`,
    `# Generated: ${input.generatedAt.toISOString()}`,
    `Mods=${modIds.values.map((id) => `${prefix}${id}`).join(";")}`,
    `WorkshopItems=${workshopIds.values.join(";")}`,
    `Map=${mapFolders.values.join(";")}`,
  ];
  return `${lines.join("\n")}\n`;
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
