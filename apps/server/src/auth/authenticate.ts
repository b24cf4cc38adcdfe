import type { Caller } from "@modpack/contract";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import type { Authenticate } from "../edge/routes.js";
import { SESSION_COOKIE, sessionCookieOptions } from "./cookies.js";
import { API_TOKEN_PREFIX } from "./secrets.js";
import type { SessionStore, ValidCredential } from "./sessions.js";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * The request's caller, resolved by the first layer that asks (the rate limiter, then the
     * procedure) and answered to the others. The app decorates requests with it (null until asked).
     */
    caller: Promise<Caller | null> | null;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
}

function toCaller(credential: ValidCredential): Caller {
  return {
    userId: credential.userId,
    role: credential.role,
    sessionId: credential.kind === "session" ? credential.id : null,
    tokenId: credential.kind === "token" ? credential.id : null,
    expiresAt: credential.expiresAt,
    ...(credential.scopes ? { scopes: credential.scopes } : {}),
    ...(credential.modpackIds ? { modpackIds: credential.modpackIds } : {}),
  };
}

/**
 * Resolves the caller from `Authorization: Bearer` (an API token or a session token) or the
 * session cookie. A valid cookie session is slid forward and its cookie re-sent; a dead one is cleared.
 * Each request is resolved once.
 */
export function createAuthenticate(store: SessionStore, config: Config): Authenticate {
  const cookieOptions = sessionCookieOptions(config);
  const resolve = async (request: FastifyRequest, reply: FastifyReply) => {
    const bearer = bearerToken(request);
    if (bearer !== undefined) {
      const credential = bearer.startsWith(API_TOKEN_PREFIX)
        ? await store.validateApiToken(bearer)
        : await store.validateSession(bearer);
      return credential ? toCaller(credential) : null;
    }
    const cookie = request.cookies[SESSION_COOKIE];
    if (!cookie) return null;
    const credential = await store.validateSession(cookie);
    if (!credential) {
      reply.clearCookie(SESSION_COOKIE, { path: "/" });
      return null;
    }
    reply.setCookie(SESSION_COOKIE, cookie, cookieOptions);
    return toCaller(credential);
  };
  // One answer per request, however many layers ask.
  return (request, reply) => (request.caller ??= resolve(request, reply));
}
