import fastifyRateLimit, { type FastifyRateLimitStore } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { LimitsConfig } from "../config.js";
import type { Authenticate } from "../edge/routes.js";

const WINDOW_MS = 60_000;

type Group = "general" | "signIn" | "workshop" | "memberAdd";

/** Procedures that call the Steam Web API, by their tRPC name. */
const workshopProcedures = new Set([
  "mods.create",
  "mods.refresh",
  "mods.updateAll",
  "modpackMods.add",
  "imports.start",
]);
/** The same operations on REST (POST). */
const workshopPaths = [
  /^\/mods$/,
  /^\/mods\/[^/]+\/refresh$/,
  /^\/mods\/update-all$/,
  /^\/modpacks\/[^/]+\/mods$/,
  /^\/modpacks\/[^/]+\/import$/,
];
const memberAddPath = /^\/modpacks\/[^/]+\/members$/;

function pathOf(url: string): string {
  const raw = url.split("?")[0] ?? "";
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {}
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

/** The group a tRPC procedure's call counts against. */
function procedureGroup(name: string): Group {
  if (workshopProcedures.has(name)) return "workshop";
  if (name === "members.add") return "memberAdd";
  return "general";
}

/**
 * Which limit a request counts against, and how many times: once, except a `/trpc/a,b,c` batch,
 * which counts once per call it holds. A batch holding any Steam-calling or member-adding call
 * counts against the stricter limit (the workshop one when it holds both), once per such call;
 * a batch of other calls counts against the general limit, once per call. Undefined for the
 * health check.
 */
export function rateLimitCost(method: string, url: string): { group: Group; count: number } | undefined {
  const path = pathOf(url);
  if (path === "/health") return undefined;
  if (
    (method === "GET" && (path === "/auth/idp" || path === "/auth/idp/callback")) ||
    (method === "POST" && path === "/dev-idp/authorize")
  ) {
    return { group: "signIn", count: 1 };
  }
  if (path.startsWith("/trpc/")) {
    const groups = path
      .slice("/trpc/".length)
      .split(",")
      .map((name) => procedureGroup(name));
    const strict = groups.filter((group) => group !== "general");
    if (strict.length === 0) return { group: "general", count: Math.max(1, groups.length) };
    return { group: strict.includes("workshop") ? "workshop" : "memberAdd", count: strict.length };
  }
  if (method === "POST") {
    if (workshopPaths.some((pattern) => pattern.test(path))) return { group: "workshop", count: 1 };
    if (memberAddPath.test(path)) return { group: "memberAdd", count: 1 };
  }
  return { group: "general", count: 1 };
}

/** Which limit a request counts against; undefined for the health check. */
export function rateLimitGroup(method: string, url: string): Group | undefined {
  return rateLimitCost(method, url)?.group;
}

/** Where a limiter key ends and the number of calls the request counts for begins. */
const COUNT_SEPARATOR = "#";

/**
 * The limiters' store: fixed windows in this process, as @fastify/rate-limit's own store keeps
 * them, except that a request adds the count its key carries (`<group>:<caller>#<count>`) instead
 * of one. Windows that ended are dropped once the store holds many keys.
 */
class CountingStore implements FastifyRateLimitStore {
  private readonly windows = new Map<string, { current: number; startedAt: number }>();

  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
  ): void {
    const separator = key.lastIndexOf(COUNT_SEPARATOR);
    const id = separator < 0 ? key : key.slice(0, separator);
    const count = separator < 0 ? 1 : Math.max(1, Number(key.slice(separator + 1)) || 1);
    const now = Date.now();
    let window = this.windows.get(id);
    if (!window || window.startedAt + timeWindow <= now) {
      if (!window && this.windows.size >= MAX_KEYS) this.dropEnded(now, timeWindow);
      window = { current: 0, startedAt: now };
      this.windows.set(id, window);
    }
    window.current += count;
    callback(null, { current: window.current, ttl: window.startedAt + timeWindow - now });
  }

  child(): FastifyRateLimitStore {
    return this;
  }

  private dropEnded(now: number, timeWindow: number): void {
    for (const [id, window] of this.windows) {
      if (window.startedAt + timeWindow <= now) this.windows.delete(id);
    }
    // Still full: forget the oldest windows rather than grow without bound.
    for (const id of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS) break;
      this.windows.delete(id);
    }
  }
}

/** How many callers' windows the store keeps before it drops ended ones. */
const MAX_KEYS = 10_000;

/**
 * Request rate limits (@fastify/rate-limit, fixed one-minute windows in this process): every
 * request per signed-in user, or per IP when anonymous; stricter limits on sign-in (per IP), on
 * operations that call the Steam Web API and on adding members; a batched `/trpc` request counts
 * once per call it holds (see `rateLimitCost`). Past a limit: `429` with `Retry-After`, the
 * `x-ratelimit-*` headers and the general error body. A limit of 0 is off.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: { limits: LimitsConfig; authenticate: Authenticate },
): Promise<void> {
  const { limits, authenticate } = options;
  await app.register(fastifyRateLimit, { global: false, store: CountingStore });
  const keys = new WeakMap<FastifyRequest, string>();
  const counts = new WeakMap<FastifyRequest, number>();
  const limiter = (group: Group, max: number) =>
    max > 0
      ? app.rateLimit({
          max,
          timeWindow: WINDOW_MS,
          keyGenerator: (request) =>
            `${group}:${keys.get(request) ?? request.ip}${COUNT_SEPARATOR}${counts.get(request) ?? 1}`,
          errorResponseBuilder: (_request, context) =>
            Object.assign(new Error(`Too many requests, retry in ${context.after}`), { statusCode: 429 }),
        })
      : undefined;
  const general = limiter("general", limits.requestsPerMinute);
  const limiters: Record<Group, ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | undefined> = {
    general,
    signIn: limiter("signIn", limits.signInPerMinute) ?? general,
    workshop: limiter("workshop", limits.workshopPerMinute) ?? general,
    memberAdd: limiter("memberAdd", limits.memberAddPerMinute) ?? general,
  };
  app.addHook("onRequest", async (request, reply) => {
    const cost = rateLimitCost(request.method, request.url);
    const group = cost?.group;
    const limit = group && limiters[group];
    if (!cost || !limit) return;
    counts.set(request, cost.count);
    if (group !== "signIn") {
      const caller = await authenticate(request, reply).catch(() => null);
      keys.set(request, caller ? `user:${caller.userId}` : `ip:${request.ip}`);
    }
    await limit(request, reply);
  });
}
