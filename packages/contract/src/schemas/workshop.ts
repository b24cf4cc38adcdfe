import { z } from "zod";

const hosts = new Set(["steamcommunity.com", "www.steamcommunity.com"]);
/** Item page paths, without their optional trailing slash. */
const paths = new Set(["/sharedfiles/filedetails", "/workshop/filedetails"]);

/** A Steam Workshop item id as text: decimal digits, at most 20 (Steam's ids are unsigned 64-bit numbers). */
export const WORKSHOP_ID = /^\d{1,20}$/;

/** A workshop id as the service answers it (WORKSHOP_ID). */
export const workshopIdSchema = z.string().max(20);

/** How much of a workshop item the service keeps: longer text is cut, further tags and requirements dropped. */
export const workshopTextLimits = {
  title: 255,
  description: 100_000,
  tags: 50,
  tag: 100,
  previewUrl: 2048,
  requiredItems: 1000,
} as const;

/**
 * The workshop id of a Steam Workshop page URL on the community domain:
 * `http(s)://(www.)steamcommunity.com/sharedfiles/filedetails/?id=N` or `.../workshop/filedetails/?id=N`
 * (trailing slash optional). Other query parameters and a fragment are allowed; exactly one `id`
 * parameter is required, a workshop id (WORKSHOP_ID) without a leading zero. Credentials, ports, other hosts
 * or schemes give null.
 */
export function parseWorkshopUrl(input: string): string | null {
  const text = input.trim();
  if (!/^https?:\/\//i.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.username !== "" || url.password !== "" || url.port !== "") return null;
  if (!hosts.has(url.hostname) || !paths.has(url.pathname.replace(/\/$/, ""))) return null;
  const ids = url.searchParams.getAll("id");
  const [id] = ids;
  return ids.length === 1 && id !== undefined && WORKSHOP_ID.test(id) && !id.startsWith("0") ? id : null;
}

/**
 * The workshop id a mod reference names: a workshop page URL (see parseWorkshopUrl) or a bare
 * workshop id (leading zeros dropped); null when it names none (an in-game mod id, say).
 */
export function workshopIdOf(reference: string): string | null {
  const text = reference.trim();
  const id = parseWorkshopUrl(text) ?? (WORKSHOP_ID.test(text) ? text : null);
  return id === null ? null : id.replace(/^0+(?=\d)/, "");
}

export const workshopUrlSchema = z
  .string()
  .trim()
  .max(500)
  .refine((value) => parseWorkshopUrl(value) !== null, {
    message: "Must be a Steam Workshop URL: https://steamcommunity.com/sharedfiles/filedetails/?id=<number>",
  })
  .meta({
    // The parser's rule as a pattern, for clients to check before sending; the parser has the last word.
    pattern:
      "^\\s*[Hh][Tt][Tt][Pp][Ss]?://([Ww][Ww][Ww]\\.)?[Ss][Tt][Ee][Aa][Mm][Cc][Oo][Mm][Mm][Uu][Nn][Ii][Tt][Yy]\\.[Cc][Oo][Mm]/(sharedfiles|workshop)/filedetails/?\\?([^#]*&)?id=[1-9][0-9]{0,19}(&[^#]*)?(#.*)?\\s*$",
    description:
      "A Steam Workshop page: `http(s)://(www.)steamcommunity.com/sharedfiles/filedetails/?id=N` or `.../workshop/filedetails/?id=N`, exactly one `id` (1-20 digits, no leading zero), no credentials or port; surrounding spaces are trimmed",
    example: "https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298",
  });
