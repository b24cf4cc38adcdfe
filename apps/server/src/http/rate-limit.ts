import fastifyRateLimit from "@fastify/rate-limit";
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

/** Which limit a request counts against; undefined for the health check. */
export function rateLimitGroup(method: string, url: string): Group | undefined {
  const path = pathOf(url);
  if (path === "/health") return undefined;
  if (
    (method === "GET" && (path === "/auth/idp" || path === "/auth/idp/callback")) ||
    (method === "POST" && path === "/dev-idp/authorize")
  ) {
    return "signIn";
  }
  if (path.startsWith("/trpc/")) {
    const procedures = path.slice("/trpc/".length).split(",");
    if (procedures.some((name) => workshopProcedures.has(name))) return "workshop";
    if (procedures.includes("members.add")) return "memberAdd";
    return "general";
  }
  if (method === "POST") {
    if (workshopPaths.some((pattern) => pattern.test(path))) return "workshop";
    if (memberAddPath.test(path)) return "memberAdd";
  }
  return "general";
}

/**
 * Request rate limits (@fastify/rate-limit, fixed one-minute windows in this process): every
 * request per signed-in user, or per IP when anonymous; stricter limits on sign-in (per IP), on
 * operations that call the Steam Web API and on adding members. Past a limit: `429` with
 * `Retry-After`, the `x-ratelimit-*` headers and the general error body. A limit of 0 is off.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: { limits: LimitsConfig; authenticate: Authenticate },
): Promise<void> {
  const { limits, authenticate } = options;
  await app.register(fastifyRateLimit, { global: false });
  const keys = new WeakMap<FastifyRequest, string>();
  const limiter = (group: Group, max: number) =>
    max > 0
      ? app.rateLimit({
          max,
          timeWindow: WINDOW_MS,
          keyGenerator: (request) => `${group}:${keys.get(request) ?? request.ip}`,
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
    const group = rateLimitGroup(request.method, request.url);
    const limit = group && limiters[group];
    if (!limit) return;
    if (group !== "signIn") {
      const caller = await authenticate(request, reply).catch(() => null);
      keys.set(request, caller ? `user:${caller.userId}` : `ip:${request.ip}`);
    }
    await limit(request, reply);
  });
}
