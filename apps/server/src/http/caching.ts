import { hash } from "node:crypto";
import { type Caller, type ModpackNeed, procedureMeta, roleHasPermission, uuid } from "@modpack/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from "fastify";
import type { Authenticate } from "../edge/routes.js";
import { type ReadVersion, recordReadVersion } from "../services/read-versions.js";

/**
 * The validators of the versioned reads, each one indexed lookup: undefined when the thing is
 * missing or the caller may not read it (the read itself then answers why).
 */
export interface ReadValidators {
  /** A modpack's read version, when the caller passes the resource rule `need`. */
  modpack(caller: Caller | null, id: string, need: ModpackNeed): Promise<string | undefined>;
  /** A catalogue mod's read version. */
  mod(id: string): Promise<string | undefined>;
}

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
  [new RegExp(`^/modpacks/(?:public/)?${UUID_SEGMENT}(?:/mods)?(?:\\?|$)`), "private, no-cache"],
];

function cacheControlFor(url: string): string | undefined {
  return cacheableReads.find(([pattern]) => pattern.test(url))?.[1];
}

/**
 * The reads whose answer is all in one versioned row's reach (see read-versions.ts): their ETag is
 * that version and the URL, so `If-None-Match` is answered from one lookup, before the read runs.
 * Every other cacheable read's ETag is its answer's hash.
 */
interface VersionedRead {
  pattern: RegExp;
  /** The procedure answering it, for its permission. */
  procedure: string;
  validate(validators: ReadValidators, caller: Caller | null, id: string): Promise<string | undefined>;
}

const versionedReads: VersionedRead[] = [
  {
    pattern: new RegExp(`^/modpacks/public/(${UUID_SEGMENT})(?:\\?|$)`),
    procedure: "modpacks.getPublic",
    validate: (validators, caller, id) => validators.modpack(caller, id, "public"),
  },
  {
    pattern: new RegExp(`^/modpacks/(${UUID_SEGMENT})(?:\\?|$)`),
    procedure: "modpacks.get",
    validate: (validators, caller, id) => validators.modpack(caller, id, "read"),
  },
  {
    pattern: new RegExp(`^/modpacks/(${UUID_SEGMENT})/mods(?:\\?|$)`),
    procedure: "modpackMods.list",
    validate: (validators, caller, id) => validators.modpack(caller, id, "read"),
  },
  {
    pattern: new RegExp(`^/mods/(${UUID_SEGMENT})(?:\\?|$)`),
    procedure: "mods.get",
    validate: (validators, _caller, id) => validators.mod(id),
  },
];

function versionedReadOf(url: string): { read: VersionedRead; id: string } | undefined {
  for (const read of versionedReads) {
    const id = read.pattern.exec(url)?.[1];
    if (id !== undefined) return { read, id };
  }
  return undefined;
}

function versionTag(version: string, url: string): string {
  return `W/"${version}.${hash("sha1", url, "base64url").slice(0, 16)}"`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  return ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*") ?? false;
}

/** Cache-Control, Vary and ETag of a cacheable read. */
function setCacheHeaders(request: FastifyRequest, reply: FastifyReply, shared: string, etag: string): void {
  // A reply to a signed-in caller (which may refresh the session cookie) is never for a shared cache.
  const personal =
    reply.hasHeader("set-cookie") ||
    request.headers.cookie !== undefined ||
    request.headers.authorization !== undefined;
  const cacheControl = personal ? shared.replace(/^public/, "private") : shared;
  reply.header("etag", etag).header("cache-control", cacheControl);
  if (cacheControl.startsWith("private")) reply.header("vary", "Cookie, Authorization");
}

/** Is the caller allowed to reach the procedure at all (signed in, role permission)? */
function mayCall(procedure: string, caller: Caller | null): boolean {
  const meta = procedureMeta(procedure);
  if (!meta) return false;
  if (!meta.openapi?.protect) return true;
  if (!caller) return false;
  return !meta.permission || roleHasPermission(caller.role, meta.permission);
}

/**
 * HTTP caching of the REST reads: ETag, Cache-Control and Vary on the cacheable reads, and 304 for
 * an `If-None-Match` that names the current ETag. A versioned read answers 304 after its validator's
 * lookup alone; the others compare the answer's hash once it is read.
 */
export function registerHttpCaching(
  rest: FastifyInstance,
  deps: { authenticate: Authenticate; validators: ReadValidators },
): void {
  const recorded = new WeakMap<FastifyRequest, ReadVersion>();

  rest.addHook("onRoute", (route) => {
    const handler = route.handler;
    route.handler = async function (this: FastifyInstance, request, reply) {
      const versioned = request.method === "GET" ? versionedReadOf(request.url) : undefined;
      if (!versioned) return handler.call(this, request, reply);
      const ifNoneMatch = request.headers["if-none-match"];
      if (ifNoneMatch && uuid.safeParse(versioned.id).success) {
        const caller = await deps.authenticate(request, reply);
        if (mayCall(versioned.read.procedure, caller)) {
          const version = await versioned.read.validate(deps.validators, caller, versioned.id).catch(() => undefined);
          const etag = version === undefined ? undefined : versionTag(version, request.url);
          const shared = cacheControlFor(request.url);
          if (etag && shared && matches(ifNoneMatch, etag)) {
            setCacheHeaders(request, reply, shared, etag);
            return reply.code(304).send();
          }
        }
      }
      const record: ReadVersion = { value: undefined };
      recorded.set(request, record);
      return recordReadVersion(record, () => handler.call(this, request, reply));
    } as RouteHandlerMethod;
  });

  const cached = (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown => {
    if (request.method !== "GET" || reply.statusCode !== 200 || typeof payload !== "string") return payload;
    const shared = cacheControlFor(request.url);
    if (!shared) return payload;
    const version = recorded.get(request)?.value;
    const etag = version === undefined ? `W/"${hash("sha1", payload, "base64url")}"` : versionTag(version, request.url);
    setCacheHeaders(request, reply, shared, etag);
    if (matches(request.headers["if-none-match"], etag)) {
      reply.code(304);
      return "";
    }
    return payload;
  };
  rest.addHook("onSend", (request, reply, payload, done) => done(null, cached(request, reply, payload)));
}
