import { z } from "zod";

const hosts = new Set(["steamcommunity.com", "www.steamcommunity.com"]);
const paths = new Set([
  "/sharedfiles/filedetails/",
  "/sharedfiles/filedetails",
  "/workshop/filedetails/",
  "/workshop/filedetails",
]);
const workshopId = /^[1-9][0-9]{0,19}$/;

/**
 * The workshop id of a Steam Workshop page URL on the community domain:
 * `http(s)://(www.)steamcommunity.com/sharedfiles/filedetails/?id=N` or `.../workshop/filedetails/?id=N`
 * (trailing slash optional). Other query parameters and a fragment are allowed; exactly one `id`
 * parameter is required, a decimal number without a leading zero. Credentials, ports, other hosts
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
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username !== "" || url.password !== "" || url.port !== "") return null;
  if (!hosts.has(url.hostname) || !paths.has(url.pathname)) return null;
  const ids = url.searchParams.getAll("id");
  const [id] = ids;
  return ids.length === 1 && id !== undefined && workshopId.test(id) ? id : null;
}

export const workshopUrlSchema = z
  .string()
  .trim()
  .max(500)
  .refine((value) => parseWorkshopUrl(value) !== null, {
    message: "Must be a Steam Workshop URL: https://steamcommunity.com/sharedfiles/filedetails/?id=<number>",
  })
  .meta({ example: "https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298" });
