import { createHmac } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  CodeChallengeMethod,
  generateCodeVerifier,
  generateState,
  OAuth2Client,
  OAuth2RequestError,
  UnexpectedErrorResponseBodyError,
  UnexpectedResponseError,
} from "arctic";
import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Config } from "../config.js";
import type { Db } from "../db/database.js";
import { sendError } from "../edge/errors.js";
import { defineRoute, firstValue, type RouteModule, routeModule } from "../edge/routes.js";
import { acceptInvitations } from "../services/members.js";
import type { RevocationPublisher } from "../services/ports.js";
import { upsertSignedInUser } from "./accounts.js";
import { SESSION_COOKIE, sessionCookieOptions } from "./cookies.js";
import { devIdentityProvider } from "./dev-idp.js";
import {
  configuredProvider,
  mapUserinfo,
  type ProviderConfig,
  ProviderError,
  type ProviderProfile,
  pickGithubEmail,
} from "./providers.js";
import { sameSecret } from "./secrets.js";
import type { SessionStore } from "./sessions.js";

export const CALLBACK_PATH = "/auth/idp/callback";
export const STATE_COOKIE = "svcauth.oauth_state";
export const STATE_COOKIE_MAX_AGE_SECONDS = 600;
/** How long one request to the provider (token exchange, userinfo) may take. */
export const PROVIDER_TIMEOUT_MS = 10_000;
const MAX_PROFILE_BYTES = 1024 * 1024;
const USER_AGENT = "modpack-collection-service";

export interface SignInDependencies {
  config: Config;
  db: Db;
  store: SessionStore;
  revocations: RevocationPublisher;
}

/** The provider for a sign-in request (per request, so the development IdP can use the listening address). */
type ProviderSource = (request: FastifyRequest) => ProviderConfig;

/**
 * The sign-in routes (`GET /auth/idp`, `GET /auth/idp/callback`) for the configured provider, or,
 * with none configured outside production, for the built-in development identity provider
 * (whose own routes under `/dev-idp/` are returned too).
 */
export function signInRoutes(deps: SignInDependencies): RouteModule[] {
  const configured = configuredProvider(deps.config);
  if (configured) return [oauthRoutes(deps, () => configured)];
  if (deps.config.isProduction) {
    throw new Error("No OAuth provider configured; the development identity provider is disabled in production");
  }
  const dev = devIdentityProvider(deps.config);
  return [oauthRoutes(deps, dev.provider), dev.routes];
}

/**
 * A `redirectTo` the service will follow after sign-in: a path on the service (starting with a
 * single `/`), or an absolute http(s) URL whose origin is PUBLIC_URL's or one of ORIGIN_ALLOWED.
 * Anything else (other origins, `//host`, backslashes, control characters, other schemes) is
 * undefined, so the caller falls back to `/`.
 */
export function safeRedirectTarget(value: unknown, config: Config): string | undefined {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return undefined;
  // Browsers drop tabs and newlines and read `\` as `/` in URLs: `/\evil.com` would leave the site.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused here
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return undefined;
  const publicOrigin = new URL(config.publicUrl).origin;
  if (value.startsWith("/")) {
    if (value.startsWith("//")) return undefined;
    const url = new URL(value, publicOrigin);
    if (url.origin !== publicOrigin) return undefined;
    return `${url.pathname}${url.search}${url.hash}`;
  }
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return undefined;
  if (url.username || url.password) return undefined;
  if (url.origin !== publicOrigin && !config.originsAllowed.includes(url.origin)) return undefined;
  return url.toString();
}

interface PendingSignIn {
  state: string;
  codeVerifier: string;
  redirectTo: string | null;
  /** Epoch milliseconds after which the pending sign-in is void. */
  expiresAt: number;
}

/** The state cookie's MAC key: derived from the client secret, so every instance agrees on it. */
function stateKey(provider: ProviderConfig): Buffer {
  return createHmac("sha256", "svcauth.oauth_state").update(provider.clientSecret).digest();
}

export function sealPendingSignIn(pending: PendingSignIn, provider: ProviderConfig): string {
  const payload = Buffer.from(JSON.stringify(pending)).toString("base64url");
  const mac = createHmac("sha256", stateKey(provider)).update(payload).digest("base64url");
  return `${payload}.${mac}`;
}

export function openPendingSignIn(
  value: string | undefined,
  provider: ProviderConfig,
  now: number,
): PendingSignIn | undefined {
  if (!value || value.length > 4096) return undefined;
  const [payload, mac, extra] = value.split(".");
  if (!payload || !mac || extra !== undefined) return undefined;
  const expected = createHmac("sha256", stateKey(provider)).update(payload).digest();
  if (!sameSecret(Buffer.from(mac, "base64url"), expected)) return undefined;
  try {
    const pending = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as PendingSignIn;
    if (typeof pending.state !== "string" || typeof pending.codeVerifier !== "string") return undefined;
    if (typeof pending.expiresAt !== "number" || pending.expiresAt <= now) return undefined;
    return pending;
  } catch {
    return undefined;
  }
}

/** A sign-in that cannot complete: 400 when the caller is at fault, 502 when the provider is. */
class SignInError extends Error {
  constructor(
    readonly status: 400 | 502,
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

const providerFailed = (reason: string) =>
  new SignInError(502, "The identity provider failed to complete the sign-in; try again later", reason);

/** The message of an error's innermost cause (a refused connection, a DNS failure). */
function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : "network error";
}

/** Exchanges the code (arctic: form POST, HTTP Basic client credentials, PKCE verifier) for an access token. */
async function exchangeCode(provider: ProviderConfig, redirectUri: string, code: string, codeVerifier: string) {
  const client = new OAuth2Client(provider.clientId, provider.clientSecret, redirectUri);
  let data: Record<string, unknown>;
  try {
    // arctic takes no abort signal: the exchange races an unreferenced timer instead.
    const timedOut = sleep(PROVIDER_TIMEOUT_MS, undefined, { ref: false }).then(() => {
      throw providerFailed(`token request timed out after ${PROVIDER_TIMEOUT_MS} ms`);
    });
    const exchange = client.validateAuthorizationCode(provider.tokenUrl, code, codeVerifier);
    data = (await Promise.race([exchange, timedOut])).data as Record<string, unknown>;
  } catch (error) {
    if (error instanceof SignInError) throw error;
    if (error instanceof UnexpectedResponseError || error instanceof UnexpectedErrorResponseBodyError) {
      throw providerFailed(`token request answered ${error.status}`);
    }
    if (!(error instanceof OAuth2RequestError)) throw providerFailed(`token request failed: ${rootMessage(error)}`);
    data = { error: error.code };
  }
  // An OAuth error answer; GitHub answers 200 with an `error` field for a bad code.
  if (typeof data.error === "string") {
    if (data.error === "bad_verification_code" || data.error === "invalid_grant") {
      throw new SignInError(
        400,
        "The authorization code is invalid, expired or already used; sign in again",
        `token request: ${data.error}`,
      );
    }
    throw providerFailed(`token request: OAuth error ${data.error.slice(0, 64)}`);
  }
  if (typeof data.access_token !== "string" || data.access_token.length === 0) {
    throw providerFailed("token response has no access_token");
  }
  return data.access_token;
}

/** GETs a JSON document from the provider with the access token. */
async function fetchWithToken(url: string, accessToken: string, what: string): Promise<unknown> {
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", "user-agent": USER_AGENT },
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    body = await response.text();
  } catch (error) {
    throw providerFailed(`${what} failed: ${rootMessage(error)}`);
  }
  if (!response.ok) throw providerFailed(`${what} answered ${response.status}`);
  if (body.length > MAX_PROFILE_BYTES) throw providerFailed(`${what} body is too large`);
  try {
    return JSON.parse(body);
  } catch {
    throw providerFailed(`${what} answered something other than JSON`);
  }
}

async function fetchProfile(provider: ProviderConfig, accessToken: string): Promise<ProviderProfile> {
  const info = await fetchWithToken(provider.userinfoUrl, accessToken, "userinfo request");
  let profile: ProviderProfile;
  try {
    profile = mapUserinfo(provider.name, info);
  } catch (error) {
    throw providerFailed(error instanceof ProviderError ? error.message : "userinfo could not be read");
  }
  if (!profile.email && provider.emailsUrl) {
    // GitHub hides a private email from /user; the user:email scope reads it from /user/emails.
    const emails = await fetchWithToken(provider.emailsUrl, accessToken, "emails request").catch(() => null);
    const email = pickGithubEmail(emails);
    if (email) profile = { ...profile, email, emailVerified: true };
  }
  return profile;
}

/** `GET /auth/idp` and `GET /auth/idp/callback`: the authorization-code flow with PKCE (S256) and state. */
function oauthRoutes(deps: SignInDependencies, providerOf: ProviderSource): RouteModule {
  const { config, db, store, revocations } = deps;
  const redirectUri = `${config.publicUrl}${CALLBACK_PATH}`;
  const sessionCookie = sessionCookieOptions(config);
  const stateCookie = {
    httpOnly: true,
    path: "/auth",
    sameSite: "lax" as const,
    secure: config.isProduction || config.publicUrl.startsWith("https:"),
  };
  const clearStateCookie = (reply: FastifyReply) => reply.clearCookie(STATE_COOKIE, stateCookie);

  const start = defineRoute({
    method: "GET",
    path: "/auth/idp",
    tags: ["Sign-in"],
    rateLimit: "signIn",
    operationId: "startSignIn",
    summary: "Start signing in",
    description:
      "Starts the OAuth 2.0 authorization-code flow with PKCE (S256): answers 302 to the identity provider's authorization URL with `response_type=code`, `client_id`, `redirect_uri` (`<PUBLIC_URL>/auth/idp/callback`), `scope`, `state`, `code_challenge` and `code_challenge_method=S256`, and keeps the state, the code verifier and `redirectTo` in a signed, HttpOnly, 10-minute cookie (`svcauth.oauth_state`, `Path=/auth`, `SameSite=Lax`). Open it in a browser. Without a configured provider (and outside production) the built-in development identity provider under `/dev-idp/` is used. Public.",
    permission: "public",
    query: z.object({
      // An unusable target is ignored (the browser lands on `/`), never refused.
      redirectTo: firstValue(z.string().max(2048).optional())
        .catch(undefined)
        .meta({
          description:
            "Where to send the browser after signing in: a path on this service (starting with a single `/`) or an absolute URL on PUBLIC_URL's origin or one of ORIGIN_ALLOWED. Anything else is ignored (the browser lands on `/`).",
          param: { example: "https://app.example.com/modpacks" },
        }),
    }),
    responses: {
      302: {
        description: "Redirect to the identity provider's authorization page; sets the `svcauth.oauth_state` cookie.",
        headers: z.object({ Location: z.url().meta({ description: "The provider's authorization URL" }) }),
      },
    },
    async handler({ request, reply, query }) {
      const provider = providerOf(request);
      const state = generateState();
      const codeVerifier = generateCodeVerifier();
      const client = new OAuth2Client(provider.clientId, provider.clientSecret, redirectUri);
      const url = client.createAuthorizationURLWithPKCE(
        provider.authorizationUrl,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        provider.scopes,
      );
      const redirectTo = safeRedirectTarget(query.redirectTo, config) ?? null;
      const expiresAt = Date.now() + STATE_COOKIE_MAX_AGE_SECONDS * 1000;
      const sealed = sealPendingSignIn({ state, codeVerifier, redirectTo, expiresAt }, provider);
      reply.setCookie(STATE_COOKIE, sealed, { ...stateCookie, maxAge: STATE_COOKIE_MAX_AGE_SECONDS });
      reply.header("cache-control", "no-store");
      return reply.redirect(url.toString(), 302);
    },
  });

  const callback = defineRoute({
    method: "GET",
    path: CALLBACK_PATH,
    tags: ["Sign-in"],
    rateLimit: "signIn",
    operationId: "completeSignIn",
    summary: "Complete signing in (OAuth callback)",
    description:
      "The identity provider sends the browser here. Checks `state` against the `svcauth.oauth_state` cookie, exchanges `code` at the provider's token URL (form POST with the PKCE `code_verifier` and HTTP Basic client credentials), reads the user from the userinfo URL, creates the user on the first sign-in and refreshes name, email and image on every one (a verified email listed in ADMIN_EMAILS gets role `admin`), creates a session, sets the `svcauth.session_token` cookie (HttpOnly, Path=/, Max-Age=300) and answers 302 to `redirectTo` or `/`. On any failure no session is created. Public.",
    permission: "public",
    query: z.object({
      // Bounds well above what providers send, so no input is unbounded.
      code: firstValue(z.string().max(2048).optional()).meta({
        description: "The authorization code from the provider.",
      }),
      state: firstValue(z.string().max(512).optional()).meta({
        description: "The state sent to the provider by `GET /auth/idp`.",
      }),
      error: firstValue(z.string().max(256).optional()).meta({
        description: "Set by the provider when the sign-in was refused, e.g. `access_denied`.",
      }),
    }),
    responses: {
      302: {
        description: "Signed in: the session cookie is set and the browser goes to `redirectTo` or `/`.",
        headers: z.object({
          Location: z.string().meta({ description: "`redirectTo` or `/`" }),
          "Set-Cookie": z.string().meta({
            description: "`svcauth.session_token=<token>; Max-Age=300; Path=/; HttpOnly; SameSite=Lax`",
          }),
        }),
      },
    },
    errors: {
      400: "The caller's fault, no session created: consent refused at the provider (`?error=access_denied`), a missing, expired or forged state, no state cookie, a missing code, or a code the provider rejects as invalid or used (`invalid_grant`).",
      502: "The identity provider failed, no session created: its token or userinfo endpoint answered an error status, could not be reached, timed out (10 s), or answered something other than the expected JSON.",
    },
    async handler({ request, reply, query }) {
      reply.header("cache-control", "no-store");
      reply.header("referrer-policy", "no-referrer");
      const provider = providerOf(request);
      let userId: string;
      let redirectTo: string | null;
      try {
        const { pending, code } = openCallback(query, request.cookies[STATE_COOKIE], provider);
        redirectTo = pending.redirectTo;
        const accessToken = await exchangeCode(provider, redirectUri, code, pending.codeVerifier);
        const profile = await fetchProfile(provider, accessToken);
        const signedIn = await upsertSignedInUser(db, provider.name, profile, config.adminEmails);
        userId = signedIn.userId;
        if (profile.email && profile.emailVerified) await acceptInvitations(db, userId, profile.email);
        // A role raised by ADMIN_EMAILS applies to the user's other, already cached, credentials too.
        if (signedIn.previousRole) await revocations.publish({ kind: "user", id: userId });
      } catch (error) {
        if (!(error instanceof SignInError)) throw error;
        request.log.warn({ status: error.status, reason: error.reason }, "sign-in failed");
        clearStateCookie(reply);
        return sendError(reply, error);
      }
      const session = await store.createSession(userId);
      clearStateCookie(reply);
      reply.setCookie(SESSION_COOKIE, session.token, sessionCookie);
      request.log.info({ userId, provider: provider.name }, "signed in");
      return reply.redirect(safeRedirectTarget(redirectTo, config) ?? "/", 302);
    },
  });

  return routeModule([start, callback]);
}

/**
 * The pending sign-in a callback completes (from the state cookie) and its code; a SignInError (400) when the
 * provider refused, the cookie is missing, expired or forged, the state does not match or the code is missing.
 */
function openCallback(
  query: { code?: string | undefined; state?: string | undefined; error?: string | undefined },
  cookie: string | undefined,
  provider: ProviderConfig,
): { pending: PendingSignIn; code: string } {
  const startAgain = "start again at /auth/idp";
  if (query.error !== undefined) {
    const code = /^[a-z_]{1,64}$/.test(query.error) ? query.error : "error";
    const message =
      code === "access_denied"
        ? "Sign-in was cancelled or refused at the identity provider (access_denied)"
        : `The identity provider refused the sign-in (${code})`;
    throw new SignInError(400, message, `provider answered error=${code}`);
  }
  const pending = openPendingSignIn(cookie, provider, Date.now());
  if (!pending) {
    throw new SignInError(400, `The sign-in state cookie is missing or expired; ${startAgain}`, "missing state cookie");
  }
  if (!query.state || !sameSecret(query.state, pending.state)) {
    throw new SignInError(400, `The sign-in state does not match; ${startAgain}`, "state mismatch");
  }
  if (!query.code) throw new SignInError(400, `The authorization code is missing; ${startAgain}`, "missing code");
  return { pending, code: query.code };
}
