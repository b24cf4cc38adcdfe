/**
 * Patches an owner's whole `servertest.ini`: only the `Mods=`, `WorkshopItems=` and `Map=` lines
 * change, every other byte stays as it was. Pure functions only.
 *
 * A line is read the way the game's server reads the file: its text with surrounding whitespace
 * trimmed is a comment when it starts with `#`, and otherwise a setting when it holds `=`, its key
 * being the text before the first `=`, trimmed, compared case-sensitively. A leading byte order
 * mark belongs to no key.
 */

import type { ServerFilePatch } from "@modpack/contract";
import { BASE_MAP, type ServerFileLines } from "./render.js";

/** The keys the patch owns. */
export const PATCHED_KEYS = ["Mods", "WorkshopItems", "Map"] as const;
type PatchedKey = (typeof PATCHED_KEYS)[number];

const BOM = "\uFEFF";

interface Line {
  text: string;
  /** `\r\n`, `\n`, `\r`, or empty for a last line without one. */
  end: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const pattern = /([^\r\n]*)(\r\n|\n|\r)/y;
  let index = 0;
  for (;;) {
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (!match) break;
    lines.push({ text: match[1] ?? "", end: match[2] ?? "" });
    index = pattern.lastIndex;
  }
  if (index < text.length) lines.push({ text: text.slice(index), end: "" });
  return lines;
}

/** The key of a setting line, or undefined for a comment, a blank line or a line without `=`. */
export function keyOf(line: string): string | undefined {
  const trimmed = line.trim();
  if (trimmed.startsWith("#")) return undefined;
  const equals = trimmed.indexOf("=");
  return equals === -1 ? undefined : trimmed.slice(0, equals).trim();
}

/** The `;` separated entries of a setting line's value, trimmed, empty ones left out. */
function entriesOf(line: string): string[] {
  const value = line.slice(line.indexOf("=") + 1);
  return value
    .split(";")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/** The entries of the first `key=` line of a file, or undefined when it has none. */
export function readEntries(text: string, key: PatchedKey): string[] | undefined {
  const body = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  const line = splitLines(body).find((candidate) => keyOf(candidate.text) === key);
  return line ? entriesOf(line.text) : undefined;
}

/** How many of `after` are not in `before`, and the other way round; ids compare without 42x's `\`. */
function difference(before: string[], after: string[], bare: (entry: string) => string) {
  const old = new Set(before.map(bare));
  const now = new Set(after.map(bare));
  return {
    added: [...now].filter((entry) => !old.has(entry)).length,
    removed: [...old].filter((entry) => !now.has(entry)).length,
  };
}

const withoutBackslash = (entry: string) => entry.replace(/^\\/, "");
const same = (entry: string) => entry;

/**
 * Writes `target`'s three lines into a whole file: the first line of each key is replaced where it
 * stands (keeping its line ending), later lines of that key are removed, and a key the file lacks
 * is appended at the end with the file's first line ending (`\n` when it has none). Comments, blank
 * lines, other settings, their order, line endings, a leading byte order mark and a missing final
 * newline are kept byte for byte.
 */
export function patchServerFile(text: string, target: ServerFileLines): ServerFilePatch {
  const bom = text.startsWith(BOM) ? BOM : "";
  const lines = splitLines(text.slice(bom.length));
  const written: Record<PatchedKey, string> = {
    Mods: `Mods=${target.mods.join(";")}`,
    WorkshopItems: `WorkshopItems=${target.workshopItems.join(";")}`,
    Map: `Map=${target.map.join(";")}`,
  };
  const before: Partial<Record<PatchedKey, string[]>> = {};
  const output: Line[] = [];
  for (const line of lines) {
    const key = keyOf(line.text);
    if (key !== "Mods" && key !== "WorkshopItems" && key !== "Map") {
      output.push(line);
    } else if (before[key] === undefined) {
      before[key] = entriesOf(line.text);
      output.push({ text: written[key], end: line.end });
    }
    // A later line of a patched key is dropped: the game would otherwise read it instead.
  }
  const missing = PATCHED_KEYS.filter((key) => before[key] === undefined);
  if (missing.length > 0) {
    const eol = lines.find((line) => line.end !== "")?.end ?? "\n";
    const last = output.at(-1);
    // A last line without a line ending gets one before the appended lines; the file still ends
    // as it did, without a final newline.
    const endsBare = last !== undefined && last.end === "";
    if (last && endsBare) last.end = eol;
    missing.forEach((key, index) => {
      const final = index === missing.length - 1;
      output.push({ text: written[key], end: final && endsBare ? "" : eol });
    });
  }
  const mods = difference(before.Mods ?? [], target.mods, withoutBackslash);
  const items = difference(before.WorkshopItems ?? [], target.workshopItems, same);
  const oldMap = before.Map;
  return {
    content: bom + output.map((line) => line.text + line.end).join(""),
    changes: {
      modsAdded: mods.added,
      modsRemoved: mods.removed,
      workshopItemsAdded: items.added,
      workshopItemsRemoved: items.removed,
      mapChanged: oldMap === undefined || oldMap.join(";") !== target.map.join(";"),
    },
  };
}

/**
 * The `Map=` entries of a patched file: the modpack's map folders, then the owner's own folders
 * from the file's current `Map=` (those no mod of the catalogue lists, in their order), then the
 * base map.
 */
export function mergeMap(modpackMap: string[], current: string[], catalogued: ReadonlySet<string>): string[] {
  const folders = modpackMap.filter((folder) => folder !== BASE_MAP);
  const taken = new Set(folders);
  const own = current.filter((folder) => folder !== BASE_MAP && !catalogued.has(folder) && !taken.has(folder));
  return [...new Set([...folders, ...own]), BASE_MAP];
}
