import { createHash } from "node:crypto";
import SwaggerParser from "@apidevtools/swagger-parser";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { DEV_CLIENT_ID, devIdentityProvider } from "../src/auth/dev-idp.js";
import { STATE_COOKIE } from "../src/auth/oauth.js";
import { loadConfig } from "../src/config.js";
import { type CapturedLog, captureLog } from "./support/log-capture.js";
import { sessionTokenOf, startSignIn } from "./support/oauth-flow.js";
import { startTestService, type TestService } from "./support/service.js";

let service: TestService;
let log: CapturedLog;

beforeAll(async () => {
  log = captureLog();
  service = await startTestService({ logger: log.logger });
  // The service calls its own /dev-idp/token and /dev-idp/userinfo over HTTP, like any provider.
  await service.app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => service?.stop());

/** The hidden and visible fields of the sign-in form. */
function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input[^>]*\bname="([^"]+)"[^>]*\bvalue="([^"]*)"/g)) {
    const [, name, value] = match;
    if (name) fields[name] = (value ?? "").replaceAll("&amp;", "&").replaceAll("&quot;", '"');
  }
  return fields;
}

async function devSignIn(name: string, email: string, query = "") {
  const start = await startSignIn(service, query);
  expect(`${start.location.origin}${start.location.pathname}`).toBe("http://localhost:3000/dev-idp/authorize");
  const page = await service.app.inject({ method: "GET", url: `${start.location.pathname}${start.location.search}` });
  expect(page.statusCode).toBe(200);
  expect(page.headers["content-type"]).toMatch(/^text\/html/);
  const fields = formFields(page.body);
  const submitted = await service.app.inject({
    method: "POST",
    url: "/dev-idp/authorize",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:3000" },
    payload: new URLSearchParams({ ...fields, name, email }).toString(),
  });
  expect(submitted.statusCode).toBe(302);
  const back = new URL(String(submitted.headers.location));
  const callback = await service.app.inject({
    method: "GET",
    url: `${back.pathname}${back.search}`,
    cookies: { [STATE_COOKIE]: start.stateCookie },
  });
  return { start, page, fields, back, callback, sessionToken: sessionTokenOf(callback) };
}

describe("the development identity provider, end to end", () => {
  it("signs in through /auth/idp → the form → the callback", async () => {
    const flow = await devSignIn("Dev Person", "dev.person@example.com", "?redirectTo=%2Fmodpacks%2Fmy");
    expect(flow.fields).toMatchObject({
      response_type: "code",
      client_id: DEV_CLIENT_ID,
      redirect_uri: "http://localhost:3000/auth/idp/callback",
      state: flow.start.location.searchParams.get("state"),
      code_challenge: flow.start.location.searchParams.get("code_challenge"),
      code_challenge_method: "S256",
    });
    expect(flow.page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(`${flow.back.origin}${flow.back.pathname}`).toBe("http://localhost:3000/auth/idp/callback");
    expect(flow.back.searchParams.get("state")).toBe(flow.start.location.searchParams.get("state"));

    expect(flow.callback.statusCode).toBe(302);
    expect(flow.callback.headers.location).toBe("/modpacks/my");
    expect(flow.sessionToken).toBeTruthy();
    const session = await service.app.inject({
      method: "GET",
      url: "/auth/session",
      cookies: { [SESSION_COOKIE]: flow.sessionToken! },
    });
    expect(session.statusCode).toBe(200);
    expect(session.json().user).toMatchObject({
      name: "Dev Person",
      email: "dev.person@example.com",
      role: "user",
      image: expect.stringMatching(/^http:\/\/localhost:3000\/dev-idp\/avatar\.svg\?name=/),
    });

    const again = await devSignIn("Renamed Person", "DEV.person@example.com");
    const second = await service.app.inject({
      method: "GET",
      url: "/auth/session",
      cookies: { [SESSION_COOKIE]: again.sessionToken! },
    });
    expect(second.json().user.id).toBe(session.json().user.id);
    expect(second.json().user.name).toBe("Renamed Person");

    const avatar = await service.app.inject({ method: "GET", url: "/dev-idp/avatar.svg?name=Dev%20Person" });
    expect(avatar.statusCode).toBe(200);
    expect(avatar.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(avatar.body).toContain(">D</text>");

    // Nothing secret reached the log.
    const text = log.text();
    for (const secret of [flow.sessionToken!, again.sessionToken!, flow.back.searchParams.get("code")!]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("/dev-idp/authorize?response_type=[redacted]");
  });

  it("refuses a replayed code at the callback (the dev IdP says invalid_grant) and creates no session", async () => {
    const flow = await devSignIn("Replay", "replay@example.com");
    expect(flow.callback.statusCode).toBe(302);
    const replay = await service.app.inject({
      method: "GET",
      url: `${flow.back.pathname}${flow.back.search}`,
      cookies: { [STATE_COOKIE]: flow.start.stateCookie },
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error.code).toBe("BAD_REQUEST");
    expect(sessionTokenOf(replay)).toBeUndefined();
  });

  it("shows the form again with 400 when the name or email is missing", async () => {
    const start = await startSignIn(service);
    const page = await service.app.inject({ method: "GET", url: `${start.location.pathname}${start.location.search}` });
    const response = await service.app.inject({
      method: "POST",
      url: "/dev-idp/authorize",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ ...formFields(page.body), name: "No Email", email: "nope" }).toString(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.body).toContain("valid email");
    expect(response.body).toContain('value="No Email"');
  });

  it.each([
    ["response_type", "token"],
    ["code_challenge_method", "plain"],
    ["redirect_uri", "https://evil.example.com/callback"],
    ["client_id", "someone-else"],
    ["code_challenge", "short"],
  ])("refuses an authorization request with %s=%s", async (name, value) => {
    const start = await startSignIn(service);
    const params = new URLSearchParams(start.location.search);
    params.set(name, value);
    const response = await service.app.inject({ method: "GET", url: `/dev-idp/authorize?${params}` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { message: expect.stringContaining(name), code: "BAD_REQUEST" } });
  });

  it("keeps its own routes out of the OpenAPI document, which stays valid", async () => {
    const document = (await service.app.inject({ method: "GET", url: "/openapi.json" })).json();
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/dev-idp"))).toEqual([]);
    expect(document.paths["/auth/idp"].get.operationId).toBe("startSignIn");
  });
});

describe("the development identity provider's protocol", () => {
  const config = loadConfig({ PUBLIC_URL: "http://localhost:3000" });
  const callback = "http://localhost:3000/auth/idp/callback";
  const verifier = "v".repeat(43);
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  let app: FastifyInstance;
  let clientSecret: string;

  beforeAll(async () => {
    const dev = devIdentityProvider(config);
    clientSecret = dev.provider({
      server: { server: { address: () => null } },
    } as unknown as FastifyRequest).clientSecret;
    app = Fastify();
    await app.register(dev.routes.plugin);
    await app.ready();
  });
  afterAll(() => app?.close());

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

  async function issueCode(): Promise<string> {
    const response = await app.inject({
      method: "POST",
      url: "/dev-idp/authorize",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        response_type: "code",
        client_id: DEV_CLIENT_ID,
        redirect_uri: callback,
        state: "st",
        code_challenge: challenge,
        code_challenge_method: "S256",
        name: "Proto",
        email: "proto@example.com",
      }).toString(),
    });
    expect(response.statusCode).toBe(302);
    const location = new URL(String(response.headers.location));
    expect(location.searchParams.get("state")).toBe("st");
    return location.searchParams.get("code")!;
  }

  function token(fields: Record<string, string>, authorization = basic(DEV_CLIENT_ID, clientSecret)) {
    return app.inject({
      method: "POST",
      url: "/dev-idp/token",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization },
      payload: new URLSearchParams(fields).toString(),
    });
  }

  it("exchanges a code once, then serves userinfo for the access token", async () => {
    const code = await issueCode();
    const fields = { grant_type: "authorization_code", code, redirect_uri: callback, code_verifier: verifier };
    const response = await token(fields);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 600 });
    const userinfo = await app.inject({
      method: "GET",
      url: "/dev-idp/userinfo",
      headers: { authorization: `Bearer ${response.json().access_token}` },
    });
    expect(userinfo.json()).toEqual({
      sub: "proto@example.com",
      name: "Proto",
      email: "proto@example.com",
      picture: expect.any(String),
    });
    const replay = await token(fields);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual({ error: "invalid_grant" });
  });

  it("refuses a wrong verifier, a wrong redirect_uri, an unknown code and a wrong grant type", async () => {
    const base = { grant_type: "authorization_code", redirect_uri: callback, code_verifier: verifier };
    expect((await token({ ...base, code: await issueCode(), code_verifier: "w".repeat(43) })).json()).toEqual({
      error: "invalid_grant",
    });
    expect((await token({ ...base, code: await issueCode(), redirect_uri: `${callback}x` })).json()).toEqual({
      error: "invalid_grant",
    });
    expect((await token({ ...base, code: "unknown" })).json()).toEqual({ error: "invalid_grant" });
    const wrongGrant = await token({ ...base, code: await issueCode(), grant_type: "client_credentials" });
    expect(wrongGrant.statusCode).toBe(400);
    expect(wrongGrant.json()).toEqual({ error: "unsupported_grant_type" });
  });

  it("requires the client credentials by HTTP Basic", async () => {
    const fields = {
      grant_type: "authorization_code",
      code: await issueCode(),
      redirect_uri: callback,
      code_verifier: verifier,
    };
    for (const authorization of [basic(DEV_CLIENT_ID, "wrong"), basic("other", clientSecret), ""]) {
      const response = await token(fields, authorization);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: "invalid_client" });
    }
    // The code was not spent by the refused attempts.
    expect((await token(fields)).statusCode).toBe(200);
  });

  it("refuses userinfo without a valid access token", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }]) {
      const response = await app.inject({ method: "GET", url: "/dev-idp/userinfo", headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error: "invalid_token" });
    }
  });
});

describe("the development identity provider's codes and tokens expire by its clock", () => {
  const config = loadConfig({ PUBLIC_URL: "http://localhost:3000" });
  const callback = "http://localhost:3000/auth/idp/callback";
  const verifier = "v".repeat(43);
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  let now = Date.now();
  let app: FastifyInstance;
  let authorization: string;

  beforeAll(async () => {
    const dev = devIdentityProvider(config, () => now);
    const secret = dev.provider({
      server: { server: { address: () => null } },
    } as unknown as FastifyRequest).clientSecret;
    authorization = `Basic ${Buffer.from(`${DEV_CLIENT_ID}:${secret}`).toString("base64")}`;
    app = Fastify();
    await app.register(dev.routes.plugin);
    await app.ready();
  });
  afterAll(() => app?.close());

  async function issueCode(): Promise<string> {
    const response = await app.inject({
      method: "POST",
      url: "/dev-idp/authorize",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        response_type: "code",
        client_id: DEV_CLIENT_ID,
        redirect_uri: callback,
        state: "st",
        code_challenge: challenge,
        code_challenge_method: "S256",
        name: "Clock",
        email: "clock@example.com",
      }).toString(),
    });
    return new URL(String(response.headers.location)).searchParams.get("code") ?? "";
  }
  const exchange = (code: string) =>
    app.inject({
      method: "POST",
      url: "/dev-idp/token",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization },
      payload: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: callback,
        code_verifier: verifier,
      }).toString(),
    });
  const userinfo = (accessToken: string) =>
    app.inject({ method: "GET", url: "/dev-idp/userinfo", headers: { authorization: `Bearer ${accessToken}` } });

  it.each([
    ["just before its 2 minutes", 2 * 60 * 1000 - 1, 200],
    ["at its 2 minutes", 2 * 60 * 1000 + 1, 400],
  ])("exchanges a code %s: %s ms after it was issued → %s", async (_when, after, status) => {
    const code = await issueCode();
    now += after;
    expect((await exchange(code)).statusCode).toBe(status);
  });

  it("serves userinfo for an access token for 10 minutes, then refuses it", async () => {
    const accessToken = (await exchange(await issueCode())).json().access_token as string;
    now += 10 * 60 * 1000 - 1;
    expect((await userinfo(accessToken)).statusCode).toBe(200);
    now += 2;
    expect((await userinfo(accessToken)).statusCode).toBe(401);
  });
});
