import { z } from "zod";

const hosts = new Set(["steamcommunity.com", "www.steamcommunity.com"]);
const paths = new Set(["/sharedfiles/filedetails", "/workshop/filedetails"]);

/**
 * The workshop id of a Steam Workshop page URL on the community domain
 * (`http(s)://(www.)steamcommunity.com/sharedfiles/filedetails/?id=N` or `/workshop/filedetails/?id=N`),
 * or null for anything else.
 */
export function parseWorkshopUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || url.port) return null;
  if (!hosts.has(url.hostname.toLowerCase())) return null;
  if (!paths.has(url.pathname.replace(/\/+$/, ""))) return null;
  const id = url.searchParams.get("id");
  return id && /^\d{1,20}$/.test(id) ? id : null;
}

export const workshopUrlSchema = z
  .string()
  .trim()
  .max(500)
  .refine((value) => parseWorkshopUrl(value) !== null, {
    message: "Must be a Steam Workshop URL: https://steamcommunity.com/sharedfiles/filedetails/?id=<number>",
  })
  .meta({ example: "https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298" });
