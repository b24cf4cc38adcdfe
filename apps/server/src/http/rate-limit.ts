import fastifyRateLimit, { type FastifyRateLimitStore, type RateLimitOptions } from "@fastify/rate-limit";
import type { RateLimitGroup } from "@modpack/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { LRUCache } from "lru-cache";
import type { LimitsConfig } from "../config.js";
import { httpError } from "../edge/errors.js";
import type { Authenticate, RouteLimit } from "../edge/routes.js";

const WINDOW_MS = 60_000;

/** The limit a route counts against: an operation's group, or sign-in (per IP). */
export type LimitGroup = RateLimitGroup | "signIn";

declare module "fastify" {
  interface FastifyRequest {
    /** Whose budget the request spends: `user:<id>` when signed in, `ip:<address>` otherwise. */
    limitKey: string;
  }
}

/**
 * Fixed one-minute windows in this process, shared by every limiter: the plugin gives each route
 * its own store (`child`), but a group's budget is spent by all of its routes and by `/trpc` alike.
 */
class SharedWindows implements FastifyRateLimitStore {
  // Past MAX_KEYS callers the least recently seen are forgotten, rather than the store growing without bound.
  private readonly windows = new LRUCache<string, { current: number; endsAt: number }>({ max: MAX_KEYS });

  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { current: 0, endsAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.current += 1;
    callback(null, { current: window.current, ttl: window.endsAt - now });
  }

  child(): FastifyRateLimitStore {
    return this;
  }
}

/** How many callers' windows the store keeps. */
const MAX_KEYS = 10_000;

export interface RateLimits {
  /**
   * What a route of the group declares: its `config.rateLimit` (the plugin's per-route limit) and the
   * `onRequest` hook that names whose budget the request spends, or nothing when no limit applies.
   */
  route(group: LimitGroup): RouteLimit | undefined;
  /**
   * Spends one unit of its group's budget per call of a `/trpc` request (a batch holds several), and
   * refuses the whole request with 429 when any call does not fit, before any call runs.
   */
  calls(request: FastifyRequest, reply: FastifyReply, groups: LimitGroup[]): Promise<void>;
}

function tooManyRequests(after: string): Error {
  return httpError(429, `Too many requests, retry in ${after}`);
}

/**
 * Request rate limits (@fastify/rate-limit, fixed one-minute windows in this process): every request
 * per signed-in user, or per IP when anonymous; stricter limits on sign-in (per IP), on operations
 * that call the Steam Web API, on adding members and on creating and testing webhooks, as each operation's meta declares. Past a
 * limit: `429` with `Retry-After`, the `x-ratelimit-*` headers and the general error body. A limit
 * of 0 falls back to the general one, which is off at 0.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  options: { limits: LimitsConfig; authenticate: Authenticate },
): Promise<RateLimits> {
  const { limits, authenticate } = options;
  await app.register(fastifyRateLimit, { global: false, store: SharedWindows });
  app.decorateRequest("limitKey", "");

  // Whose budget a request spends; a caller the database cannot tell now is limited by address.
  const identify = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await authenticate(request, reply).catch(() => null);
    request.limitKey = caller ? `user:${caller.userId}` : `ip:${request.ip}`;
  };
  const byIp: onRequestAsyncHookHandler = async (request) => {
    request.limitKey = `ip:${request.ip}`;
  };
  const own: Record<LimitGroup, number> = {
    general: limits.requestsPerMinute,
    signIn: limits.signInPerMinute,
    workshop: limits.workshopPerMinute,
    memberAdd: limits.memberAddPerMinute,
    webhook: limits.webhookPerMinute,
    none: 0,
  };
  // A group whose own limit is 0 spends the general budget.
  const budgetOf = (group: LimitGroup): LimitGroup => (group === "none" || own[group] > 0 ? group : "general");
  const maxOf = (group: LimitGroup) => own[budgetOf(group)];
  const optionsOf = (group: LimitGroup): RateLimitOptions => {
    const budget = budgetOf(group);
    return {
      max: own[budget],
      timeWindow: WINDOW_MS,
      keyGenerator: (request) => `${budget}:${request.limitKey}`,
      errorResponseBuilder: (_request, context) => tooManyRequests(context.after),
    };
  };
  const checks = new Map<LimitGroup, ReturnType<FastifyInstance["createRateLimit"]>>();
  for (const group of ["general", "signIn", "workshop", "memberAdd", "webhook"] as const) {
    if (maxOf(group) > 0) checks.set(group, app.createRateLimit(optionsOf(group)));
  }

  return {
    route(group) {
      if (maxOf(group) <= 0) return undefined;
      return { config: { rateLimit: optionsOf(group) }, onRequest: group === "signIn" ? byIp : identify };
    },
    async calls(request, reply, groups) {
      await identify(request, reply);
      let tightest: { max: number; remaining: number; ttlInSeconds: number } | undefined;
      let exceeded = false;
      for (const group of groups) {
        const check = checks.get(group);
        if (!check) continue;
        const result = await check(request);
        if (result.isAllowed) continue;
        exceeded ||= result.isExceeded;
        if (!tightest || result.remaining <= tightest.remaining) tightest = result;
      }
      if (!tightest) return;
      reply.header("x-ratelimit-limit", tightest.max);
      reply.header("x-ratelimit-remaining", tightest.remaining);
      reply.header("x-ratelimit-reset", tightest.ttlInSeconds);
      if (!exceeded) return;
      reply.header("retry-after", tightest.ttlInSeconds);
      throw tooManyRequests(`${tightest.ttlInSeconds} seconds`);
    },
  };
}
