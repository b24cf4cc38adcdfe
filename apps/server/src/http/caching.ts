import { hash } from "node:crypto";
import type { CacheRule } from "@modpack/contract";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The versions that answer `If-None-Match` before a read runs, besides a modpack's (its resource
 * rule reads it): one indexed lookup, undefined when the thing is missing (the read then answers why).
 */
export interface ReadValidators {
  /** A catalogue mod's read version. */
  mod(id: string): Promise<string | undefined>;
}

/** A version's ETag: the version and the URL, since the query (a page, a filter) changes the answer too. */
export function versionTag(version: string, url: string): string {
  return `W/"${version}.${hash("sha1", url, "base64url").slice(0, 16)}"`;
}

/** The ETag of an answer that has no version: its hash. */
export function contentTag(body: string): string {
  return `W/"${hash("sha1", body, "base64url")}"`;
}

/** Does `If-None-Match` name the ETag? */
export function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  return ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*") ?? false;
}

/**
 * Cache-Control, Vary and ETag of a cacheable read. Both scopes revalidate each time (`no-cache`):
 * the ETag makes that a 304 when nothing changed. A read for a signed-in caller (which may refresh the
 * session cookie) or naming one of the rule's `privateWith` fields is never for a shared cache.
 */
export function setCacheHeaders(request: FastifyRequest, reply: FastifyReply, rule: CacheRule, etag: string): void {
  const query = request.query as Record<string, unknown>;
  const personal =
    rule.scope === "private" ||
    reply.hasHeader("set-cookie") ||
    request.headers.cookie !== undefined ||
    request.headers.authorization !== undefined ||
    (rule.privateWith ?? []).some((field) => query[field] !== undefined);
  reply.header("etag", etag).header("cache-control", personal ? "private, no-cache" : "public, no-cache");
  if (personal) reply.header("vary", "Cookie, Authorization");
}
