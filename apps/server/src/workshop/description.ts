/** Identifiers a Project Zomboid workshop description advertises. */
export interface ParsedDescription {
  /** Values of `Mod ID:` lines, as the game's mod.info `id=` (split on `;` and `,`). */
  platformModIds: string[];
  /** Values of `Map Folder:` lines (split on `;` only: folder names may contain commas). */
  mapFolders: string[];
  /** Every distinct `Workshop ID:` value in the description, whoever it belongs to. */
  workshopIds: string[];
}

type Field = "workshop" | "mod" | "map";

interface Entry {
  field: Field;
  value: string;
}

interface Block {
  workshopId: string | null;
  mods: string[];
  maps: string[];
}

/** BBCode tags that start or end a block of text; every other tag is inline and simply removed. */
const BLOCK_BBCODE = new Set([
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "list",
  "olist",
  "*",
  "p",
  "hr",
  "br",
  "code",
  "quote",
  "table",
  "tr",
  "td",
  "th",
  "ul",
  "ol",
  "li",
]);

const BLOCK_HTML = new Set([
  "br",
  "p",
  "div",
  "li",
  "ul",
  "ol",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "tr",
  "td",
  "th",
  "table",
  "pre",
  "blockquote",
]);

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

/** `Workshop ID:`, `Mod ID:` / `ModID:` / `Mod IDs:`, `Map Folder:` / `Map Folders:`, not preceded by a letter or digit. */
const LABEL = /(?<![\p{L}\p{N}_])(?:(workshop[\s_-]*ids?)|(mod[\s_-]*ids?)|(map[\s_-]*folders?))\s*:/giu;

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith("#x")) return codePoint(Number.parseInt(lower.slice(2), 16), whole);
    if (lower.startsWith("#")) return codePoint(Number.parseInt(lower.slice(1), 10), whole);
    return NAMED_ENTITIES[lower] ?? whole;
  });
}

function codePoint(value: number, fallback: string): string {
  if (!Number.isInteger(value) || value <= 0 || value > 0x10ffff) return fallback;
  return value === 0xa0 ? " " : String.fromCodePoint(value);
}

/** Removes BBCode and HTML markup (block-level tags become line breaks) and decodes common entities. */
export function stripMarkup(description: string): string {
  const withoutBbcode = description.replace(BBCODE_TAG, (_tag, name: string) =>
    BLOCK_BBCODE.has(name.toLowerCase()) ? "\n" : "",
  );
  const withoutHtml = withoutBbcode.replace(HTML_TAG, (_tag, name: string) =>
    BLOCK_HTML.has(name.toLowerCase()) ? "\n" : "",
  );
  return decodeEntities(withoutHtml);
}

function fieldOf(match: RegExpMatchArray): Field {
  if (match[1] !== undefined) return "workshop";
  if (match[2] !== undefined) return "mod";
  return "map";
}

function hasLabel(line: string): boolean {
  LABEL.lastIndex = 0;
  const found = LABEL.test(line);
  LABEL.lastIndex = 0;
  return found;
}

/**
 * Reads labelled values line by line. A line may hold several labels ("Workshop ID: 1 Mod ID: A");
 * each label's value runs to the next label or the end of the line. A label with nothing after it
 * that ends its line takes the next non-empty line as its value, unless that line has a label itself.
 */
function readEntries(text: string): Entry[] {
  const lines = text.split(/\r\n|\r|\n/);
  const entries: Entry[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const matches = [...line.matchAll(LABEL)];
    for (let position = 0; position < matches.length; position++) {
      const match = matches[position]!;
      const next = matches[position + 1];
      const start = (match.index ?? 0) + match[0].length;
      let value = line.slice(start, next?.index ?? line.length).trim();
      if (value === "" && next === undefined) {
        let lookahead = index + 1;
        while (lookahead < lines.length && (lines[lookahead] ?? "").trim() === "") lookahead++;
        const candidate = lines[lookahead];
        if (candidate !== undefined && !hasLabel(candidate)) {
          value = candidate.trim();
          index = lookahead;
        }
      }
      entries.push({ field: fieldOf(match), value });
    }
  }
  return entries;
}

function splitValues(value: string, separators: RegExp): string[] {
  return value
    .split(separators)
    .map((part) => part.replace(/^[\s|]+|[\s|]+$/g, ""))
    .filter((part) => part.length > 0);
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

function toBlocks(entries: Entry[]): { preamble: Block; blocks: Block[] } {
  const preamble: Block = { workshopId: null, mods: [], maps: [] };
  const blocks: Block[] = [];
  let current = preamble;
  for (const entry of entries) {
    if (entry.field === "workshop") {
      const id = /\d+/.exec(entry.value)?.[0];
      if (id === undefined) continue;
      current = { workshopId: id, mods: [], maps: [] };
      blocks.push(current);
    } else if (entry.field === "mod") {
      current.mods.push(...splitValues(entry.value, /[;,]/));
    } else {
      current.maps.push(...splitValues(entry.value, /;/));
    }
  }
  return { preamble, blocks };
}

/**
 * Extracts mod ids, map folders and workshop ids from a workshop item's description.
 *
 * Markup is removed first (BBCode and HTML tags, common entities). Labels are matched
 * case-insensitively anywhere in a line, so bullets, dashes and several labels per line are fine.
 * Mod ids are split on `;` and `,`, map folders on `;` only; values are trimmed, empties dropped and
 * duplicates removed keeping the first occurrence.
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
  const { preamble, blocks } = toBlocks(readEntries(stripMarkup(description)));
  const workshopIds = unique(blocks.map((block) => block.workshopId).filter((id): id is string => id !== null));

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

  return {
    platformModIds: unique(chosen.flatMap((block) => block.mods)),
    mapFolders: unique(chosen.flatMap((block) => block.maps)),
    workshopIds,
  };
}
