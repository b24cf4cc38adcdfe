import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";

const UUID_SEGMENT = "[0-9a-fA-F-]{36}";
/**
 * Cache-Control of the cacheable reads: the same for every caller (public lists, the catalogue)
 * or depending on who asks (a modpack, a modpack's mods, the catalogue filtered by a modpack).
 * Both revalidate each time (`no-cache`): the ETag makes that a 304 when nothing changed.
 */
const cacheableReads: [RegExp, string][] = [
  [/^\/modpacks\/public(?:\?|$)/, "public, no-cache"],
  [/^\/mods\?(?:.*&)?modpackId=/, "private, no-cache"],
  [/^\/mods(?:\/tags)?(?:\?|$)/, "public, no-cache"],
  [new RegExp(`^/mods/${UUID_SEGMENT}(?:\\?|$)`), "public, no-cache"],
  [new RegExp(`^/modpacks/${UUID_SEGMENT}(?:/mods)?(?:\\?|$)`), "private, no-cache"],
];

function cacheControlFor(url: string): string | undefined {
  return cacheableReads.find(([pattern]) => pattern.test(url))?.[1];
}

/** HTTP caching of the cacheable reads: an ETag from the answer's bytes, 304 when If-None-Match names it. */
export function cacheReads(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    if (request.method !== "GET" || reply.statusCode !== 200 || typeof payload !== "string") return payload;
    const shared = cacheControlFor(request.url);
    if (!shared) return payload;
    // A reply to a signed-in caller (which may refresh the session cookie) is never for a shared cache.
    const personal =
      reply.hasHeader("set-cookie") ||
      request.headers.cookie !== undefined ||
      request.headers.authorization !== undefined;
    const cacheControl = personal ? shared.replace(/^public/, "private") : shared;
    const etag = `W/"${createHash("sha1").update(payload).digest("base64url")}"`;
    reply.header("etag", etag).header("cache-control", cacheControl);
    if (cacheControl.startsWith("private")) reply.header("vary", "Cookie, Authorization");
    if (request.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
      reply.code(304);
      return "";
    }
    return payload;
  });
}
