import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import type { RouteModule } from "../http/app.js";
import { errorBody } from "../http/errors.js";
import type { OpenApiPaths } from "../http/openapi.js";
import type { ProviderConfig } from "./providers.js";
import { generateSecret } from "./secrets.js";

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

interface IssuedCode {
  redirectUri: string;
  codeChallenge: string;
  identity: DevIdentity;
  expiresAt: number;
}

interface IssuedToken {
  identity: DevIdentity;
  expiresAt: number;
}

export interface DevIdentityProvider {
  /** The provider config the sign-in routes use, exactly as for a real provider. */
  provider: (request: FastifyRequest) => ProviderConfig;
  routes: RouteModule;
}

/** A small map whose entries expire; the oldest entry is dropped when it is full. */
function expiringMap<T extends { expiresAt: number }>(now: () => number) {
  const entries = new Map<string, T>();
  return {
    set(key: string, value: T) {
      const at = now();
      for (const [k, entry] of entries) if (entry.expiresAt <= at) entries.delete(k);
      if (entries.size >= MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, value);
    },
    /** Removes and answers the live entry under `key` (one use). */
    take(key: string): T | undefined {
      const entry = entries.get(key);
      entries.delete(key);
      return entry && entry.expiresAt > now() ? entry : undefined;
    },
    get(key: string): T | undefined {
      const entry = entries.get(key);
      return entry && entry.expiresAt > now() ? entry : undefined;
    },
  };
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

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function field(source: unknown, name: string): string | undefined {
  if (typeof source !== "object" || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scope: string;
}

/**
 * A development identity provider under `/dev-idp/` speaking the same OAuth 2.0 protocol as a real
 * one (authorization code, PKCE S256, HTTP Basic client authentication, Bearer userinfo), with a
 * page that asks for a name and an email. Codes and tokens live in memory. Never used in production.
 */
export function devIdentityProvider(config: Config, now: () => number = Date.now): DevIdentityProvider {
  if (config.isProduction) throw new Error("The development identity provider is disabled in production");
  const clientSecret = generateSecret();
  const callbackUrl = `${config.publicUrl}/auth/idp/callback`;
  const publicOrigin = new URL(config.publicUrl).origin;
  const codes = expiringMap<IssuedCode>(now);
  const tokens = expiringMap<IssuedToken>(now);

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

  /** Checks the authorization request's parameters; answers the problem, or the request. */
  const readAuthorizeRequest = (source: unknown): AuthorizeRequest | string => {
    if (field(source, "response_type") !== "code") return "response_type must be code";
    const clientId = field(source, "client_id");
    if (clientId !== DEV_CLIENT_ID) return "client_id is not this service's development client";
    const redirectUri = field(source, "redirect_uri");
    if (redirectUri !== callbackUrl) return `redirect_uri must be ${callbackUrl}`;
    if (field(source, "code_challenge_method") !== "S256") return "code_challenge_method must be S256";
    const codeChallenge = field(source, "code_challenge");
    if (!codeChallenge || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) return "code_challenge is missing or malformed";
    const state = field(source, "state");
    if (!state || state.length > 512) return "state is missing or too long";
    return { clientId, redirectUri, state, codeChallenge, scope: field(source, "scope") ?? "" };
  };

  const page = (
    reply: FastifyReply,
    request: AuthorizeRequest,
    values: { name: string; email: string },
    error = "",
  ) => {
    const hidden = {
      response_type: "code",
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: "S256",
      scope: request.scope,
    };
    const hiddenInputs = Object.entries(hidden)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
      .join("\n      ");
    reply
      .header(
        "content-security-policy",
        `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${publicOrigin}; frame-ancestors 'none'; base-uri 'none'`,
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

  const plugin: FastifyPluginAsync = async (app) => {
    // The app parses JSON only; the OAuth endpoints take HTML-form bodies, in this scope alone.
    app.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(typeof body === "string" ? body : body.toString("utf8"))));
      },
    );

    app.get(`${DEV_IDP_PREFIX}/authorize`, async (request, reply) => {
      const authorize = readAuthorizeRequest(request.query);
      if (typeof authorize === "string") {
        return reply.code(400).send(errorBody({ status: 400, message: `Invalid authorization request: ${authorize}` }));
      }
      return page(reply, authorize, { name: "", email: "" });
    });

    app.post(`${DEV_IDP_PREFIX}/authorize`, async (request, reply) => {
      const authorize = readAuthorizeRequest(request.body);
      if (typeof authorize === "string") {
        return reply.code(400).send(errorBody({ status: 400, message: `Invalid authorization request: ${authorize}` }));
      }
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
      codes.set(code, {
        redirectUri: authorize.redirectUri,
        codeChallenge: authorize.codeChallenge,
        identity: { sub, name, email, picture },
        expiresAt: now() + CODE_TTL_MS,
      });
      const target = new URL(authorize.redirectUri);
      target.searchParams.set("code", code);
      target.searchParams.set("state", authorize.state);
      return reply.header("cache-control", "no-store").redirect(target.toString(), 302);
    });

    app.post(`${DEV_IDP_PREFIX}/token`, async (request, reply) => {
      const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? "");
      const credentials = basic?.[1] ? Buffer.from(basic[1], "base64").toString("utf8") : "";
      const separator = credentials.indexOf(":");
      const id = separator >= 0 ? credentials.slice(0, separator) : "";
      const secret = separator >= 0 ? credentials.slice(separator + 1) : "";
      if (id !== DEV_CLIENT_ID || !sameText(secret, clientSecret)) {
        reply.header("www-authenticate", 'Basic realm="dev-idp"');
        return oauthError(reply, 401, "invalid_client");
      }
      const body = request.body;
      if (field(body, "grant_type") !== "authorization_code") return oauthError(reply, 400, "unsupported_grant_type");
      const code = field(body, "code");
      const redirectUri = field(body, "redirect_uri");
      const verifier = field(body, "code_verifier");
      if (!code || !redirectUri || !verifier) return oauthError(reply, 400, "invalid_request");
      const issued = codes.take(code);
      if (!issued || issued.redirectUri !== redirectUri || !sameText(s256(verifier), issued.codeChallenge)) {
        return oauthError(reply, 400, "invalid_grant");
      }
      const accessToken = generateSecret();
      tokens.set(accessToken, { identity: issued.identity, expiresAt: now() + ACCESS_TOKEN_TTL_SECONDS * 1000 });
      return reply
        .header("cache-control", "no-store")
        .send({ access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS });
    });

    app.get(`${DEV_IDP_PREFIX}/userinfo`, async (request, reply) => {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
      const issued = bearer ? tokens.get(bearer) : undefined;
      if (!issued) {
        reply.header("www-authenticate", 'Bearer error="invalid_token"');
        return oauthError(reply, 401, "invalid_token");
      }
      return reply.header("cache-control", "no-store").send(issued.identity);
    });

    app.get(`${DEV_IDP_PREFIX}/avatar.svg`, async (request, reply) => {
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
    });
  };

  return { provider, routes: { plugin, paths: devIdpPaths } };
}

const tags = ["Development identity provider"];
const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
const oauthErrorContent = {
  "application/json": {
    schema: {
      type: "object" as const,
      required: ["error"],
      properties: { error: { type: "string" as const, example: "invalid_grant" } },
    },
  },
};
const authorizeParameters = [
  ["response_type", "Must be `code`."],
  ["client_id", "The development client id."],
  ["redirect_uri", "Must be `<PUBLIC_URL>/auth/idp/callback`."],
  ["state", "Returned unchanged with the code."],
  ["code_challenge", "BASE64URL(SHA-256(code_verifier)), 43 characters."],
  ["code_challenge_method", "Must be `S256`."],
  ["scope", "Ignored; any scopes are granted."],
].map(([name, description]) => ({
  name: name as string,
  in: "query" as const,
  required: name !== "scope",
  description: description as string,
  schema: { type: "string" as const },
}));
const formSchema = (properties: Record<string, string>, required: string[]) => ({
  "application/x-www-form-urlencoded": {
    schema: {
      type: "object" as const,
      required,
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, description]) => [name, { type: "string" as const, description }]),
      ),
    },
  },
});
const note =
  " Served only when OAUTH_PROVIDER is unset and NODE_ENV is not `production`; the sign-in routes use it exactly like a real provider.\n\nPublic: called by the browser and the service during sign-in, with no session.";

const devIdpPaths: OpenApiPaths = {
  [`${DEV_IDP_PREFIX}/authorize`]: {
    get: {
      tags,
      operationId: "devIdpAuthorizePage",
      summary: "Development sign-in page",
      description: `The development identity provider's authorization endpoint: an HTML form asking for a name and an email.${note}`,
      security: [],
      parameters: authorizeParameters,
      responses: {
        "200": { description: "The sign-in form", content: { "text/html": { schema: { type: "string" } } } },
        "400": { description: "A parameter of the authorization request is invalid.", content: errorContent },
      },
    },
    post: {
      tags,
      operationId: "devIdpAuthorize",
      summary: "Submit the development sign-in form",
      description: `Issues a one-time authorization code (valid 2 minutes) bound to the code challenge, the redirect URI and the typed identity, and redirects to \`redirect_uri?code&state\`. The same email is always the same user.${note}`,
      security: [],
      requestBody: {
        required: true,
        content: formSchema(
          {
            response_type: "`code`",
            client_id: "The development client id",
            redirect_uri: "`<PUBLIC_URL>/auth/idp/callback`",
            state: "The client's state",
            code_challenge: "The S256 code challenge",
            code_challenge_method: "`S256`",
            name: "Display name, 1-100 characters",
            email: "Email address",
          },
          [
            "response_type",
            "client_id",
            "redirect_uri",
            "state",
            "code_challenge",
            "code_challenge_method",
            "name",
            "email",
          ],
        ),
      },
      responses: {
        "302": { description: "Back to the service's callback with `code` and `state`." },
        "400": {
          description:
            "An invalid authorization request (JSON error body), or a missing name or email (the form again, as HTML).",
          content: { ...errorContent, "text/html": { schema: { type: "string" } } },
        },
      },
    },
  },
  [`${DEV_IDP_PREFIX}/token`]: {
    post: {
      tags,
      operationId: "devIdpToken",
      summary: "Development token endpoint",
      description: `Exchanges an authorization code for an access token (valid 10 minutes). Client credentials by HTTP Basic; checks that SHA-256(code_verifier) matches the code challenge and that redirect_uri matches. Codes work once. Errors use the OAuth 2.0 error body.${note}`,
      security: [],
      requestBody: {
        required: true,
        content: formSchema(
          {
            grant_type: "`authorization_code`",
            code: "The authorization code",
            redirect_uri: "The redirect URI of the authorization request",
            code_verifier: "The PKCE code verifier",
          },
          ["grant_type", "code", "redirect_uri", "code_verifier"],
        ),
      },
      responses: {
        "200": {
          description: "The access token",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["access_token", "token_type", "expires_in"],
                properties: {
                  access_token: { type: "string" },
                  token_type: { type: "string", enum: ["Bearer"] },
                  expires_in: { type: "integer", example: ACCESS_TOKEN_TTL_SECONDS },
                },
              },
            },
          },
        },
        "400": {
          description: "`invalid_request`, `unsupported_grant_type` or `invalid_grant`.",
          content: oauthErrorContent,
        },
        "401": { description: "`invalid_client`: wrong HTTP Basic client credentials.", content: oauthErrorContent },
      },
    },
  },
  [`${DEV_IDP_PREFIX}/userinfo`]: {
    get: {
      tags,
      operationId: "devIdpUserinfo",
      summary: "Development userinfo endpoint",
      description: `The identity behind an access token, sent as \`Authorization: Bearer <access_token>\`.${note}`,
      security: [],
      responses: {
        "200": {
          description: "The identity",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["sub", "name", "email", "picture"],
                properties: {
                  sub: { type: "string" },
                  name: { type: "string" },
                  email: { type: "string" },
                  picture: { type: "string", format: "uri" },
                },
              },
            },
          },
        },
        "401": {
          description: "`invalid_token`: a missing, unknown or expired access token.",
          content: oauthErrorContent,
        },
      },
    },
  },
  [`${DEV_IDP_PREFIX}/avatar.svg`]: {
    get: {
      tags,
      operationId: "devIdpAvatar",
      summary: "Development avatar",
      description: `A generated SVG avatar with the name's initial, used as the development identity's \`picture\`.${note}`,
      security: [],
      parameters: [{ name: "name", in: "query", required: false, schema: { type: "string" } }],
      responses: {
        "200": { description: "An SVG image", content: { "image/svg+xml": { schema: { type: "string" } } } },
      },
    },
  },
};
