const WORKSHOP_HOSTS = new Set(["steamcommunity.com", "www.steamcommunity.com"]);
const WORKSHOP_PATHS = new Set([
  "/sharedfiles/filedetails/",
  "/sharedfiles/filedetails",
  "/workshop/filedetails/",
  "/workshop/filedetails",
]);
const WORKSHOP_ID = /^[1-9][0-9]{0,19}$/;

/**
 * Reads a Steam Workshop item link: `http(s)://(www.)steamcommunity.com/sharedfiles/filedetails/?id=N`
 * or `.../workshop/filedetails/?id=N` (trailing slash optional). Other query parameters and a fragment
 * are allowed; exactly one `id` parameter is required and it must be a canonical decimal number
 * (digits, no leading zero). Credentials, ports, other hosts or schemes give null.
 */
export function parseWorkshopUrl(input: string): { workshopId: string } | null {
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
  if (!WORKSHOP_HOSTS.has(url.hostname)) return null;
  if (!WORKSHOP_PATHS.has(url.pathname)) return null;
  const ids = url.searchParams.getAll("id");
  const [id] = ids;
  if (ids.length !== 1 || id === undefined || !WORKSHOP_ID.test(id)) return null;
  return { workshopId: id };
}

/** True when `parseWorkshopUrl` accepts the input. */
export function isWorkshopUrl(input: string): boolean {
  return parseWorkshopUrl(input) !== null;
}
