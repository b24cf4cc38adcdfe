import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { LRUCache } from "lru-cache";
import { z } from "zod";
import type { Config } from "../config.js";
import { httpError } from "../edge/errors.js";
import { defineRoute, routeModule } from "../edge/routes.js";
import { bearerToken } from "./authenticate.js";
import type { ProviderConfig } from "./providers.js";
import { generateSecret, sameSecret } from "./secrets.js";

export const DEV_IDP_PREFIX = "/dev-idp";
export const DEV_CLIENT_ID = "modpack-dev-client";
const CODE_TTL_MS = 2 * 60 * 1000;
const ACCESS_TOKEN_TTL_SECONDS = 600;
const MAX_ENTRIES = 10_000;
const FORM_BODY_LIMIT = 16 * 1024;

interface DevIdentity {
  sub: string;
  name: string;
  email: string;
  picture: string;
}

/** The address this process listens on, for its own server-to-server calls (PUBLIC_URL may be a proxy). */
function listeningBaseUrl(request: FastifyRequest): string | undefined {
  const address = request.server.server.address();
  if (!address || typeof address === "string") return undefined;
  const host = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

function field(source: unknown, name: string): string | undefined {
  if (typeof source !== "object" || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * A development identity provider under `/dev-idp/` speaking the same OAuth 2.0 protocol as a real
 * one (authorization code, PKCE S256, HTTP Basic client authentication, Bearer userinfo), with a
 * page that asks for a name and an email. Codes and tokens live in memory. Never used in production.
 * Answers its routes and the provider config the sign-in routes use, exactly as for a real provider.
 */
export function devIdentityProvider(config: Config, now: () => number = Date.now) {
  if (config.isProduction) throw new Error("The development identity provider is disabled in production");
  const clientSecret = generateSecret();
  const callbackUrl = `${config.publicUrl}/auth/idp/callback`;
  const publicOrigin = new URL(config.publicUrl).origin;
  // The form's POST is redirected to the callback and from there to `redirectTo`, which may be a
  // front-end in ORIGIN_ALLOWED: browsers apply form-action to every hop of those redirects.
  const formTargets = [publicOrigin, ...config.originsAllowed].join(" ");

  const challengeProblem = "code_challenge is missing or malformed";
  const stateProblem = "state is missing or too long";
  // An authorization request's parameters, by their OAuth names, checked in this order.
  const authorizeRequest = z.object({
    response_type: z.literal("code", "response_type must be code"),
    client_id: z.literal(DEV_CLIENT_ID, "client_id is not this service's development client"),
    redirect_uri: z.literal(callbackUrl, `redirect_uri must be ${callbackUrl}`),
    code_challenge_method: z.literal("S256", "code_challenge_method must be S256"),
    code_challenge: z.string(challengeProblem).regex(/^[A-Za-z0-9_-]{43}$/, challengeProblem),
    state: z.string(stateProblem).min(1, stateProblem).max(512, stateProblem),
    scope: z.string().catch(""),
  });
  type AuthorizeRequest = z.infer<typeof authorizeRequest>;

  // Codes and tokens expire after their lifetime; the least recently used go first when full.
  const expiring = <V extends object>(ttl: number) =>
    new LRUCache<string, V>({ max: MAX_ENTRIES, ttl, perf: { now }, ttlResolution: 0 });
  // A code keeps the authorization request it answers, and the identity it signs in.
  const codes = expiring<AuthorizeRequest & { identity: DevIdentity }>(CODE_TTL_MS);
  const tokens = expiring<DevIdentity>(ACCESS_TOKEN_TTL_SECONDS * 1000);

  const provider = (request: FastifyRequest): ProviderConfig => {
    const serverBase = listeningBaseUrl(request) ?? config.publicUrl;
    return {
      name: "dev",
      clientId: DEV_CLIENT_ID,
      clientSecret,
      authorizationUrl: `${config.publicUrl}${DEV_IDP_PREFIX}/authorize`,
      tokenUrl: `${serverBase}${DEV_IDP_PREFIX}/token`,
      userinfoUrl: `${serverBase}${DEV_IDP_PREFIX}/userinfo`,
      scopes: ["openid", "profile", "email"],
    };
  };

  /** The authorization request's parameters, checked; a 400 naming the first problem. */
  const readAuthorizeRequest = (source: unknown): AuthorizeRequest => {
    // A missing or non-object source (no form body) has no parameters at all.
    const parsed = authorizeRequest.safeParse({ ...(source as object) });
    if (parsed.success) return parsed.data;
    throw httpError(400, `Invalid authorization request: ${parsed.error.issues[0]!.message}`);
  };

  const page = (
    reply: FastifyReply,
    request: AuthorizeRequest,
    values: { name: string; email: string },
    error = "",
  ) => {
    const hiddenInputs = Object.entries(request)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
      .join("\n      ");
    reply
      .header(
        "content-security-policy",
        `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .header("cache-control", "no-store")
      .header("x-frame-options", "DENY")
      .type("text/html; charset=utf-8");
    return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Development sign-in</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 26rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
    label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
    input[type=text], input[type=email] { width: 100%; padding: .5rem; box-sizing: border-box; }
    button { margin-top: 1.5rem; padding: .6rem 1.2rem; }
    .note { color: #666; font-size: .9rem; }
    .error { color: #b00020; }
  </style>
</head>
<body>
  <h1>Development sign-in</h1>
  <p class="note">This is the Modpack Collection Service's built-in identity provider for development.
  Any name and email will do; the same email signs in as the same user. It is not served in production.</p>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
  <form method="post" action="${escapeHtml(`${config.publicUrl}${DEV_IDP_PREFIX}/authorize`)}">
      ${hiddenInputs}
    <label for="name">Name</label>
    <input id="name" type="text" name="name" required maxlength="100" autocomplete="name" value="${escapeHtml(values.name)}">
    <label for="email">Email</label>
    <input id="email" type="email" name="email" required maxlength="254" autocomplete="email" value="${escapeHtml(values.email)}">
    <button type="submit">Sign in</button>
  </form>
</body>
</html>
`;
  };

  const oauthError = (reply: FastifyReply, status: number, error: string) =>
    reply.code(status).header("cache-control", "no-store").send({ error });

  // The app parses JSON only; the OAuth endpoints take HTML-form bodies, in this scope alone.
  const acceptForms = (app: FastifyInstance) => {
    app.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
      (_request, body: string, done) => done(null, Object.fromEntries(new URLSearchParams(body))),
    );
  };

  const route = (method: "GET" | "POST", path: string, summary: string, handler: Handler) =>
    defineRoute({
      method,
      path: `${DEV_IDP_PREFIX}${path}`,
      tags: ["Development identity provider"],
      operationId: `devIdp${method}${path.replace(/\W/g, "")}`,
      summary,
      description: `${summary}. Public: the development identity provider's own protocol, outside production only.`,
      permission: "public",
      // Signing in is limited per IP like the real provider's start and callback.
      rateLimit: method === "POST" && path === "/authorize" ? "signIn" : "general",
      responses: { 200: { description: summary } },
      handler: ({ request, reply }) => handler(request, reply),
    });

  const routes = [
    route("GET", "/authorize", "The sign-in page", async (request, reply) =>
      page(reply, readAuthorizeRequest(request.query), { name: "", email: "" }),
    ),
    route("POST", "/authorize", "Sign in with a name and an email", async (request, reply) => {
      const authorize = readAuthorizeRequest(request.body);
      const name = (field(request.body, "name") ?? "").trim();
      const email = (field(request.body, "email") ?? "").trim();
      const problem =
        name.length === 0 || name.length > 100
          ? "Enter a name of 1 to 100 characters."
          : !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254
            ? "Enter a valid email address."
            : "";
      if (problem) return page(reply.code(400), authorize, { name, email }, problem);
      const sub = email.toLowerCase();
      const picture = `${config.publicUrl}${DEV_IDP_PREFIX}/avatar.svg?name=${encodeURIComponent(name)}`;
      const code = generateSecret();
      codes.set(code, { ...authorize, identity: { sub, name, email, picture } });
      const target = new URL(authorize.redirect_uri);
      target.searchParams.set("code", code);
      target.searchParams.set("state", authorize.state);
      return reply.header("cache-control", "no-store").redirect(target.toString(), 302);
    }),
    route("POST", "/token", "Exchange an authorization code for an access token", async (request, reply) => {
      const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? "")?.[1] ?? "";
      if (!sameSecret(Buffer.from(basic, "base64").toString("utf8"), `${DEV_CLIENT_ID}:${clientSecret}`)) {
        reply.header("www-authenticate", 'Basic realm="dev-idp"');
        return oauthError(reply, 401, "invalid_client");
      }
      const body = request.body;
      if (field(body, "grant_type") !== "authorization_code") return oauthError(reply, 400, "unsupported_grant_type");
      const code = field(body, "code");
      const redirectUri = field(body, "redirect_uri");
      const verifier = field(body, "code_verifier");
      if (!code || !redirectUri || !verifier) return oauthError(reply, 400, "invalid_request");
      // A code is used once.
      const issued = codes.get(code);
      codes.delete(code);
      if (!issued || issued.redirect_uri !== redirectUri || !sameSecret(s256(verifier), issued.code_challenge)) {
        return oauthError(reply, 400, "invalid_grant");
      }
      const accessToken = generateSecret();
      tokens.set(accessToken, issued.identity);
      return reply
        .header("cache-control", "no-store")
        .send({ access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS });
    }),
    route("GET", "/userinfo", "The signed-in identity", async (request, reply) => {
      const bearer = bearerToken(request);
      const identity = bearer ? tokens.get(bearer) : undefined;
      if (!identity) {
        reply.header("www-authenticate", 'Bearer error="invalid_token"');
        return oauthError(reply, 401, "invalid_token");
      }
      return reply.header("cache-control", "no-store").send(identity);
    }),
    route("GET", "/avatar.svg", "An avatar with the name's initial", async (request, reply) => {
      const name = field(request.query, "name") ?? "?";
      const initial = escapeHtml(Array.from(name.trim())[0]?.toUpperCase() ?? "?");
      const hue = createHash("sha256").update(name).digest().readUInt16BE(0) % 360;
      return reply
        .type("image/svg+xml")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
        .header("cache-control", "public, max-age=86400")
        .send(
          `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" fill="hsl(${hue} 55% 45%)"/><text x="48" y="62" font-family="sans-serif" font-size="44" fill="#fff" text-anchor="middle">${initial}</text></svg>`,
        );
    }),
  ];

  // Its routes are the provider's own protocol, not the service's API: none is in the OpenAPI document.
  return { provider, routes: routeModule(routes, acceptForms, []) };
}
