import { describeReason, printable, type UnsafeReason, unsafeReason } from "../server-file/safe-text.js";

export type BuildVersion = "41x" | "42x";

/**
 * The version of the parsing rules below. Raise it with any change to what `parseDescription`
 * answers: catalogue rows parsed by an older version are then parsed again from their stored
 * descriptions by the catalogue re-parse job.
 */
export const PARSER_VERSION = 1;

/** In-game mod ids per game build; an id the description does not qualify belongs to both. */
export type BuildModIds = Record<BuildVersion, string[]>;

/** A mod's own id lists per build as the catalogue stores them: absent or null where it has none. */
export type StoredBuildModIds = { [V in BuildVersion]?: string[] | null };

/**
 * A mod's in-game ids for one game build: its own list for that build when it has one, otherwise
 * every id it advertises. The one rule for "which ids does this build load".
 */
export function idsForBuild(
  mod: { platformModIds: string[]; buildModIds?: StoredBuildModIds | null },
  version: BuildVersion,
): string[] {
  return mod.buildModIds?.[version] ?? mod.platformModIds;
}

/** Why a value found after a `Mod ID:` or `Map Folder:` label is not used. */
export type RejectedReason = UnsafeReason | "invalid-character";

export interface RejectedDescriptionValue {
  field: "modId" | "mapFolder";
  /** The value, printable (line-breaking characters escaped) and cut to 100 characters. */
  value: string;
  reason: RejectedReason;
}

/** Identifiers a Project Zomboid workshop description advertises. */
export interface ParsedDescription {
  /** Every in-game mod id (the game's mod.info `id=`), in order of appearance, without repeats. */
  platformModIds: string[];
  /** The in-game mod ids of each game build, in the order of `platformModIds`. */
  buildModIds: BuildModIds;
  /** Values of `Map Folder:` lines (split on `;` and `|` only: folder names may contain commas). */
  mapFolders: string[];
  /** Every distinct `Workshop ID:` value in the description, whoever it belongs to. */
  workshopIds: string[];
  /** Values that look like ids or map folders but may not be used, with the reason. */
  rejected: RejectedDescriptionValue[];
}

type Field = "workshop" | "mod" | "map";

const BOTH_BUILDS: readonly BuildVersion[] = ["41x", "42x"];

interface Entry {
  field: Field;
  value: string;
  /** Builds the label (or the section it is in) names; undefined when it names none. */
  builds: readonly BuildVersion[] | undefined;
  /** `Old Mod ID:` and the like: the value is not current and is ignored. */
  old: boolean;
}

interface ModValue {
  id: string;
  builds: readonly BuildVersion[];
}

interface Block {
  workshopId: string | null;
  mods: ModValue[];
  maps: string[];
  rejected: RejectedDescriptionValue[];
}

/** BBCode and HTML tags that start or end a block of text; every other tag is inline and simply removed. */
const BLOCK_BBCODE = /^(?:h[1-6]|list|olist|\*|p|hr|br|code|quote|table|tr|td|th|ul|ol|li)$/i;
const BLOCK_HTML = /^(?:br|p|div|li|ul|ol|h[1-6]|hr|tr|td|th|table|pre|blockquote)$/i;

/**
 * Steam's BBCode tags plus common forum ones. Unknown bracketed words are kept, since mod ids such as
 * `Arsenal(26)GunFighter[MAIN MENU]` or `Foo[B42]` contain brackets.
 */
const BBCODE_NAMES =
  "h[1-6]|b|i|u|s|strike|spoiler|noparse|hr|br|url|img|previewyoutube|list|olist|ul|ol|li|\\*|p|quote|code|table|tr|td|th|color|colour|size|font|center|left|right|justify|sup|sub|indent|emoticon|youtube|video";
const BBCODE_TAG = new RegExp(`\\[\\/?(${BBCODE_NAMES})(?:=[^\\]\\r\\n]*)?\\]`, "gi");
const HTML_TAG = /<\/?([a-z][a-z0-9]*)\b[^<>]*\/?>/gi;
const ENTITY = /&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos|nbsp|#39);/gi;

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** A game build: `b41`, `B42`, `Build 42`, `build-41`, `42`, `B42.13`. */
const BUILD = String.raw`(?:b(?:uild)?)?\s*-?\s*4[12](?:\.\d+)*`;
/**
 * The same, but needing its `b` / `build` prefix: a bare number outside brackets is no build, and
 * neither is `v42` (a mod's own version).
 */
const BARE_BUILD = String.raw`b(?:uild)?\s*-?\s*4[12](?:\.\d+)*`;
const BUILD_LIST = String.raw`${BUILD}(?:\s*(?:[/&,+]|and|or)\s*${BUILD})*`;
const BARE_BUILD_LIST = String.raw`${BARE_BUILD}(?:\s*(?:[/&,+]|and|or)\s*${BARE_BUILD})*`;
const OLD_WORD = "(?:old|previous|former|legacy|deprecated)";
const PREFIX = String.raw`(?:${OLD_WORD}[\s_-]*)?(?:(?:\[\s*${BUILD_LIST}\s*\]|\(\s*${BUILD_LIST}\s*\)|${BARE_BUILD_LIST})[\s_:-]*)?(?:${OLD_WORD}[\s_-]*)?`;
const SUFFIX = String.raw`(?:\s*\(\s*(?:for\s+)?${BUILD_LIST}(?:\s+only)?\s*\)|\s*\[\s*(?:for\s+)?${BUILD_LIST}(?:\s+only)?\s*\]|[\s_-]*(?:for\s+)?${BARE_BUILD_LIST}(?:\s+only)?)?`;

/**
 * A label: `Workshop ID:`, `Mod ID:` / `ModID:` / `Mod IDs:`, `Map Folder:` / `Map Folders:`, not
 * preceded by a Latin letter or a digit (so `ServerModID:` is no label). It may name game builds
 * before or after the field (`B42 Mod ID:`, `[B42] Mod ID:`, `Mod ID (b41):`, `Mod ID (Build 42):`)
 * and may say the value is not current (`Old Mod ID:`, `Previous Mod ID:`). The colon may be
 * full-width.
 */
const LABEL = new RegExp(
  String.raw`(?<![\p{Script=Latin}\p{N}_])(${PREFIX})(?:(workshop[\s_-]*ids?)|(mod[\s_-]*ids?)|(map[\s_-]*folders?))(${SUFFIX})\s*[:：]`,
  "giu",
);
/** The same, to test whether a line holds one. */
const HAS_LABEL = new RegExp(LABEL.source, "iu");
const OLD = new RegExp(String.raw`^${OLD_WORD}\b|\b${OLD_WORD}[\s_-]*$`, "i");
const BUILD_NUMBER = /4([12])/g;

/** A line that only names a build (`B41:`, `[h2]Build 42[/h2]`, `For B42 only`) starts a section for that build. */
const SECTION = new RegExp(
  String.raw`^[\s\p{P}\p{S}]*(?:for\s+)?${BARE_BUILD_LIST}(?:\s+(?:only|version|users?))?[\s\p{P}\p{S}]*$`,
  "iu",
);

/** Separators between several values on one line. Commas do not separate map folders. */
const MOD_SEPARATORS = new Set([",", ";", "|", "，", "；", "、", "｜"]);
const MAP_SEPARATORS = new Set([";", "|", "；", "｜"]);

/** One word of an in-game id: letters, digits, `_ - . ' / [ ]`, and parentheses inside the word. */
const ID_TOKEN =
  /^[\p{L}\p{N}\p{M}_\-.'/[\]][\p{L}\p{N}\p{M}_\-.'/[\]()]*(?: [\p{L}\p{N}\p{M}_\-.'/[\]][\p{L}\p{N}\p{M}_\-.'/[\]()]*)*$/u;
/** Most words an id is made of; more is a sentence. */
const MAX_ID_WORDS = 5;
/** Lower-case words that mark a value as a sentence (`see below`, `below`, `across the servers`). */
const PROSE_WORDS = new Set(
  (
    "a above also an and any are as at be below by can check each for from here if in is it its must my not of on " +
    "or our please same see set should that the their there this to use will with you your"
  ).split(" "),
);
/** Values that stand for "no value". */
const PLACEHOLDERS = new Set(["n/a", "na", "none", "tbd", "todo", "null", "-", "--", "—", "–", "?"]);
/** A separated part longer than this is text, not an id with its annotations. */
const MAX_PART_LENGTH = 1000;
/** Most trailing annotations removed from one id. */
const MAX_ANNOTATIONS = 5;
const TRAILING_ANNOTATION = /\s+\(([^()]*)\)$/u;
/** An annotation that names builds: `(B42)`, `(for Build 41)`, `(b41/b42)`. */
const BUILD_ANNOTATION = new RegExp(String.raw`^\s*(?:for\s+)?${BUILD_LIST}(?:\s+only)?\s*$`, "i");
const QUOTED = /^(["'`“”‘’«])(.*)(["'`“”‘’»])$/u;

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (!lower.startsWith("#")) return NAMED_ENTITIES[lower] ?? whole;
    // `#39` is decimal, `#x27` hexadecimal: `Number` reads "39" and "0x27".
    const value = Number(lower.slice(1).replace("x", "0x"));
    if (!Number.isInteger(value) || value <= 0 || value > 0x10ffff) return whole;
    return value === 0xa0 ? " " : String.fromCodePoint(value);
  });
}

/** Removes BBCode and HTML markup (block-level tags become line breaks) and decodes common entities. */
export function stripMarkup(description: string): string {
  const withoutBbcode = description.replace(BBCODE_TAG, (_tag, name: string) => (BLOCK_BBCODE.test(name) ? "\n" : ""));
  const withoutHtml = withoutBbcode.replace(HTML_TAG, (_tag, name: string) => (BLOCK_HTML.test(name) ? "\n" : ""));
  return decodeEntities(withoutHtml);
}

/**
 * Line breaks of every kind become `\n`, spaces of every kind a space and a tab two (a tab is never
 * inside an id); invisible format characters go.
 */
function normalize(text: string): string {
  return text
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, "\n")
    .replace(/[\t\v\f]/g, "  ")
    .replace(/\p{Zs}/gu, " ")
    .replace(/\p{Cf}/gu, "");
}

/** The builds a piece of text names (`b41` → 41x, `B41/B42` → both); undefined when it names none. */
function buildsIn(text: string): BuildVersion[] | undefined {
  const found = new Set<BuildVersion>();
  for (const match of text.matchAll(BUILD_NUMBER)) found.add(match[1] === "1" ? "41x" : "42x");
  return found.size === 0 ? undefined : BOTH_BUILDS.filter((build) => found.has(build));
}

function fieldOf(match: RegExpMatchArray): Field {
  if (match[2] !== undefined) return "workshop";
  if (match[3] !== undefined) return "mod";
  return "map";
}

/**
 * Reads labelled values line by line. A line may hold several labels ("Workshop ID: 1 Mod ID: A");
 * each label's value runs to the next label or the end of the line. A label with nothing after it
 * that ends its line takes the next non-empty line as its value, unless that line has a label itself
 * or names a build. A line naming only a build starts a section whose unqualified labels take it.
 */
function readEntries(text: string): Entry[] {
  const lines = text.split("\n");
  const entries: Entry[] = [];
  let section: readonly BuildVersion[] | undefined;
  /** True right after a section line: a following one (`B41` then `B42`) adds its builds. */
  let sectionOpen = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const matches = [...line.matchAll(LABEL)];
    if (matches.length === 0) {
      if (SECTION.test(line)) {
        const named = buildsIn(line) ?? [];
        section = sectionOpen
          ? BOTH_BUILDS.filter((build) => named.includes(build) || section?.includes(build))
          : named;
        sectionOpen = true;
      } else if (line.trim() !== "") {
        sectionOpen = false;
      }
      continue;
    }
    sectionOpen = false;
    for (let position = 0; position < matches.length; position++) {
      const match = matches[position]!;
      const next = matches[position + 1];
      const start = (match.index ?? 0) + match[0].length;
      let value = line.slice(start, next?.index ?? line.length).trim();
      if (value === "" && next === undefined) {
        let lookahead = index + 1;
        while (lookahead < lines.length && (lines[lookahead] ?? "").trim() === "") lookahead++;
        const candidate = lines[lookahead];
        if (candidate !== undefined && !HAS_LABEL.test(candidate) && !SECTION.test(candidate)) {
          value = candidate.trim();
          index = lookahead;
        }
      }
      const prefix = match[1] ?? "";
      const suffix = match[5] ?? "";
      entries.push({
        field: fieldOf(match),
        value,
        builds: buildsIn(`${prefix} ${suffix}`) ?? section,
        old: OLD.test(prefix.trim()),
      });
    }
  }
  return entries;
}

/** Splits on any of `separators` outside parentheses, so `Foo (new, was Bar)` stays one value. */
function splitValues(value: string, separators: Set<string>): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const character of value) {
    if (character === "(") depth++;
    else if (character === ")" && depth > 0) depth--;
    if (depth === 0 && separators.has(character)) {
      parts.push(current);
      current = "";
    } else {
      current += character;
    }
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  const quoted = QUOTED.exec(value);
  return quoted === null ? value : (quoted[2] ?? "").trim();
}

/** A sentence rather than an id: many words, sentence punctuation after several words, or common words. */
function isProse(value: string): boolean {
  const words = value.split(/ +/);
  if (words.length > MAX_ID_WORDS) return true;
  if (words.length > 1 && /[.!?:]$/.test(value)) return true;
  return words.some((word) => PROSE_WORDS.has(word.replace(/[.!?:]+$/, "")));
}

function reject(block: Block, field: RejectedDescriptionValue["field"], value: string, reason: RejectedReason) {
  block.rejected.push({ field, value: printable(value), reason });
}

/**
 * One in-game id from one separated part of a `Mod ID:` value, added to `block`: quotes, trailing
 * annotations (`(CHANGED)`, `(NEW)`; one naming a build qualifies the id) and anything after a run
 * of spaces are removed, as is the backslash of the B42 server-file form. Placeholders and prose
 * give nothing; a token with characters the game does not accept, or that the server file refuses,
 * is rejected.
 */
function addMod(block: Block, part: string, entryBuilds: readonly BuildVersion[] | undefined): void {
  if (part.length > MAX_PART_LENGTH) return;
  let value = unquote(part.trim());
  let builds = entryBuilds;
  let annotations = 0;
  for (let annotation = TRAILING_ANNOTATION.exec(value); annotation !== null && annotations++ < MAX_ANNOTATIONS; ) {
    const text = annotation[1] ?? "";
    const named = BUILD_ANNOTATION.test(text) ? buildsIn(text) : undefined;
    if (named !== undefined) builds = named;
    value = value.slice(0, annotation.index).trimEnd();
    annotation = TRAILING_ANNOTATION.exec(value);
  }
  value = (value.split(/ {2,}/)[0] ?? "").replace(/^\\+/, "");
  if (!value.includes(" ")) value = value.replace(/\.+$/, "");
  if (value === "" || value.startsWith("(") || PLACEHOLDERS.has(value.toLowerCase()) || isProse(value)) return;
  const unsafe = unsafeReason(value);
  if (unsafe !== undefined) reject(block, "modId", value, unsafe);
  else if (!ID_TOKEN.test(value)) reject(block, "modId", value, "invalid-character");
  else block.mods.push({ id: value, builds: builds ?? BOTH_BUILDS });
}

/** One map folder from one separated part of a `Map Folder:` value, added to `block`. */
function addMap(block: Block, part: string): void {
  const value = unquote(part.trim());
  if (value === "" || PLACEHOLDERS.has(value.toLowerCase()) || isProse(value)) return;
  const unsafe = unsafeReason(value);
  if (unsafe !== undefined) reject(block, "mapFolder", value, unsafe);
  else block.maps.push(value);
}

function toBlocks(entries: Entry[]): { preamble: Block; blocks: Block[] } {
  const preamble: Block = { workshopId: null, mods: [], maps: [], rejected: [] };
  const blocks: Block[] = [];
  let current = preamble;
  for (const entry of entries) {
    if (entry.old) continue;
    if (entry.field === "workshop") {
      const id = /\d+/.exec(entry.value)?.[0];
      if (id === undefined) continue;
      current = { workshopId: id, mods: [], maps: [], rejected: [] };
      blocks.push(current);
    } else if (entry.field === "mod") {
      for (const part of splitValues(entry.value, MOD_SEPARATORS)) addMod(current, part, entry.builds);
    } else {
      for (const part of splitValues(entry.value, MAP_SEPARATORS)) addMap(current, part);
    }
  }
  return { preamble, blocks };
}

/**
 * Extracts mod ids (per game build), map folders and workshop ids from a workshop item's description.
 *
 * Markup is removed first (BBCode and HTML tags, common entities), every kind of line break becomes
 * one and invisible format characters (zero-width spaces, byte order marks) go. Labels are matched
 * case-insensitively anywhere in a line, so bullets, dashes and several labels per line are fine.
 * Mod ids are split on `,` `;` `|`, map folders on `;` `|` only; values are trimmed, empties dropped
 * and duplicates removed keeping the first occurrence. A mod id is one token of letters, digits,
 * `_ - . ' / [ ]` and single inner spaces (parentheses inside a word too); trailing annotations such
 * as `(CHANGED)` are removed, sentences are not ids. `Old Mod ID:`-style labels are ignored.
 *
 * Builds: a label naming builds (`Mod ID (b41):`, `[B42] Mod ID:`), an annotation naming them
 * (`Foo (B42)`) or a preceding line naming only a build (`Build 42:`) restricts its ids to those
 * builds; other ids belong to both. `platformModIds` lists every id.
 *
 * Values that look like ids but contain characters the game does not accept or the server file
 * refuses (`=`, `;`, control characters, line separators, over 200 characters) are listed in
 * `rejected` instead.
 *
 * Attribution: each `Mod ID:` / `Map Folder:` value belongs to the nearest preceding `Workshop ID:`
 * line (its block); values before the first `Workshop ID:` line form the preamble.
 * - Without `workshopId`, every value is returned.
 * - With `workshopId`, the result is the preamble plus every block whose id equals `workshopId`.
 * - If no block's id equals `workshopId`, the result is the preamble alone when it holds any value;
 *   otherwise, when the description has exactly one block, that block; otherwise nothing.
 *
 * `workshopIds` always lists every distinct `Workshop ID:` value, in order of appearance.
 */
export function parseDescription(description: string, workshopId?: string): ParsedDescription {
  const { preamble, blocks } = toBlocks(readEntries(normalize(stripMarkup(description))));
  const workshopIds = [...new Set(blocks.map((block) => block.workshopId!))];

  let chosen: Block[];
  if (workshopId === undefined) {
    chosen = [preamble, ...blocks];
  } else {
    const own = blocks.filter((block) => block.workshopId === workshopId);
    const preambleHasValues = preamble.mods.length > 0 || preamble.maps.length > 0;
    if (own.length > 0) chosen = [preamble, ...own];
    else if (preambleHasValues) chosen = [preamble];
    else if (blocks.length === 1) chosen = blocks;
    else chosen = [];
  }

  const buildsOf = new Map<string, Set<BuildVersion>>();
  for (const mod of chosen.flatMap((block) => block.mods)) {
    const builds = buildsOf.get(mod.id) ?? new Set<BuildVersion>();
    for (const build of mod.builds) builds.add(build);
    buildsOf.set(mod.id, builds);
  }
  const platformModIds = [...buildsOf.keys()];
  const idsOf = (build: BuildVersion) => platformModIds.filter((id) => buildsOf.get(id)?.has(build));
  const rejected = new Map<string, RejectedDescriptionValue>();
  for (const value of chosen.flatMap((block) => block.rejected)) rejected.set(`${value.field}\n${value.value}`, value);

  return {
    platformModIds,
    buildModIds: { "41x": idsOf("41x"), "42x": idsOf("42x") },
    mapFolders: [...new Set(chosen.flatMap((block) => block.maps))],
    workshopIds,
    rejected: [...rejected.values()],
  };
}

/**
 * One sentence naming the values that cannot be used, for an import's per-item failure, e.g.
 * `mod id "Mods=Evil" contains '='; map folder "A;B" contains ';'`. Empty when there are none.
 */
export function describeRejectedValues(values: RejectedDescriptionValue[]): string {
  return values
    .map(({ field, value, reason }) => {
      const what = field === "modId" ? "mod id" : "map folder";
      const why =
        reason === "invalid-character" ? "contains a character the game does not accept" : describeReason(reason);
      return `${what} "${value}" ${why}`;
    })
    .join("; ");
}
