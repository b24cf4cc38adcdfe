import type { Config } from "../config.js";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";
import { bearerToken } from "./authenticate.js";
import { SESSION_COOKIE, sessionCookieOptions } from "./cookies.js";
import { API_TOKEN_PREFIX } from "./secrets.js";
import type { SessionStore } from "./sessions.js";

export interface SignOutDependencies {
  config: Config;
  store: SessionStore;
  endSession(sessionId: string): Promise<void>;
}

/** `POST /auth/sign-out`: ends the session at once on every instance and clears the cookie. */
export function signOutRoutes(deps: SignOutDependencies): RouteModule {
  const { store } = deps;
  const cookieOptions = sessionCookieOptions(deps.config);
  const signOut = defineRoute({
    method: "POST",
    path: "/auth/sign-out",
    tags: ["Sign-in"],
    operationId: "signOut",
    summary: "Sign out",
    description:
      "Ends the caller's session (from the cookie, or a session token sent as Bearer) at once on every server instance and clears the cookie. Idempotent: without a valid session it still answers 204. API tokens are revoked with `DELETE /auth/tokens/{id}` instead.\n\nPublic: anyone may call it, with or without a session.",
    permission: "public",
    optionalSession: true,
    responses: { 204: { description: "Signed out; the cookie is cleared." } },
    errors: { 403: "A cookie request from an origin that is neither the service's nor in ORIGIN_ALLOWED." },
    async handler({ request, reply }) {
      const bearer = bearerToken(request);
      const token = bearer && !bearer.startsWith(API_TOKEN_PREFIX) ? bearer : request.cookies[SESSION_COOKIE];
      const credential = token ? await store.validateSession(token) : null;
      if (credential) await deps.endSession(credential.id);
      reply.clearCookie(SESSION_COOKIE, { path: "/", sameSite: cookieOptions.sameSite, secure: cookieOptions.secure });
      return reply.code(204).send();
    },
  });
  return routeModule([signOut]);
}
