import { randomBytes } from "node:crypto";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { STATE_COOKIE } from "../src/auth/oauth.js";
import { type FakeProvider, startFakeProvider } from "./fixtures/oauth-provider.js";
import {
  browserSignIn,
  finishSignIn,
  sessionTokenOf,
  setCookieHeaders,
  startSignIn,
  visitProvider,
} from "./support/oauth-flow.js";
import { startTestService, type TestService } from "./support/service.js";

let provider: FakeProvider;
let service: TestService;

beforeAll(async () => {
  provider = await startFakeProvider();
  service = await startTestService({
    env: { ...provider.env, ADMIN_EMAILS: "Boss@Example.com" },
  });
});
afterAll(async () => {
  await service?.stop();
  await provider?.close();
});
beforeEach(() => provider.reset());

async function sessionCount(): Promise<number> {
  const row = await service.runtime.database.db
    .selectFrom("sessions")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe("GET /auth/idp", () => {
  it("redirects to the provider with the authorization-code + PKCE parameters", async () => {
    const { response, location, stateCookie } = await startSignIn(service);
    expect(response.statusCode).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.url}/authorize`);
    const params = location.searchParams;
    expect(params.get("response_type")).toBe("code");
    expect(params.get("client_id")).toBe(provider.clientId);
    expect(params.get("redirect_uri")).toBe("http://localhost:3000/auth/idp/callback");
    expect(params.get("scope")).toBe("openid email profile");
    expect(params.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(stateCookie).toBeTruthy();
    const [header] = setCookieHeaders(response).filter((cookie) => cookie.startsWith(`${STATE_COOKIE}=`));
    expect(header).toBe(`${STATE_COOKIE}=${stateCookie}; Max-Age=600; Path=/auth; HttpOnly; SameSite=Lax`);
    expect(response.headers["cache-control"]).toBe("no-store");
  });

  it("uses a fresh state and verifier every time", async () => {
    const first = await startSignIn(service);
    const second = await startSignIn(service);
    expect(first.location.searchParams.get("state")).not.toBe(second.location.searchParams.get("state"));
    expect(first.location.searchParams.get("code_challenge")).not.toBe(
      second.location.searchParams.get("code_challenge"),
    );
  });
});

describe("a full sign-in", () => {
  it("creates the user and a session, sets the cookie exactly, and lands on /", async () => {
    const before = await sessionCount();
    const flow = await browserSignIn(service);
    expect(flow.callback.statusCode).toBe(302);
    expect(flow.callback.headers.location).toBe("/");
    expect(provider.rejections).toEqual([]);

    const token = flow.sessionToken;
    expect(token).toMatch(/^[a-z2-7]{52}$/);
    const cookies = setCookieHeaders(flow.callback);
    expect(cookies).toContain(`${SESSION_COOKIE}=${token}; Max-Age=300; Path=/; HttpOnly; SameSite=Lax`);
    // The state cookie is used once.
    expect(cookies).toContain(
      `${STATE_COOKIE}=; Max-Age=0; Path=/auth; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax`,
    );
    expect(await sessionCount()).toBe(before + 1);

    // The token exchange was a form POST with the verifier and Basic credentials (checked by the fixture).
    const exchange = provider.tokenRequests.at(-1);
    expect(exchange?.get("grant_type")).toBe("authorization_code");
    expect(exchange?.get("redirect_uri")).toBe("http://localhost:3000/auth/idp/callback");
    expect(exchange?.get("code_verifier")).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const session = await service.app.inject({
      method: "GET",
      url: "/auth/session",
      cookies: { [SESSION_COOKIE]: token! },
    });
    expect(session.statusCode).toBe(200);
    const body = session.json();
    expect(body).toEqual({
      session: { id: expect.any(String), userId: body.user.id, expiresAt: expect.any(String) },
      user: {
        id: expect.any(String),
        name: "Fixture User",
        email: "fixture@example.com",
        role: "user",
        image: `${provider.url}/avatar.svg`,
      },
    });
    const expiresIn = Date.parse(body.session.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(4 * 60 * 1000);
    expect(expiresIn).toBeLessThanOrEqual(5 * 60 * 1000);
    const stored = await service.runtime.database.db
      .selectFrom("sessions")
      .select("tokenHash")
      .where("id", "=", body.session.id)
      .executeTakeFirstOrThrow();
    expect(stored.tokenHash).not.toBe(token);
    expect(stored.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refreshes the profile on the next sign-in and keeps the same user", async () => {
    provider.profile = { sub: "upsert-1", name: "First Name", email: "first@example.com", picture: "https://a/1.png" };
    const first = await browserSignIn(service);
    const firstUser = (
      await service.app.inject({
        method: "GET",
        url: "/auth/session",
        cookies: { [SESSION_COOKIE]: first.sessionToken! },
      })
    ).json().user;

    provider.profile = {
      sub: "upsert-1",
      name: "Second Name",
      email: "second@example.com",
      picture: "https://a/2.png",
    };
    const second = await browserSignIn(service);
    expect(second.sessionToken).not.toBe(first.sessionToken);
    const secondUser = (
      await service.app.inject({
        method: "GET",
        url: "/auth/session",
        cookies: { [SESSION_COOKIE]: second.sessionToken! },
      })
    ).json().user;

    expect(secondUser.id).toBe(firstUser.id);
    expect(secondUser).toMatchObject({ name: "Second Name", email: "second@example.com", image: "https://a/2.png" });
    const accounts = await service.runtime.database.db
      .selectFrom("accounts")
      .selectAll()
      .where("providerUserId", "=", "upsert-1")
      .execute();
    expect(accounts).toEqual([
      { provider: "custom", providerUserId: "upsert-1", userId: firstUser.id, createdAt: expect.any(Date) },
    ]);
  });

  it("accepts an `id`-shaped profile with a numeric id", async () => {
    provider.profile = { id: 987654, login: "octo", avatar_url: "https://avatars.example.com/987654" };
    const flow = await browserSignIn(service);
    expect(flow.callback.statusCode).toBe(302);
    const user = (
      await service.app.inject({
        method: "GET",
        url: "/auth/session",
        cookies: { [SESSION_COOKIE]: flow.sessionToken! },
      })
    ).json().user;
    expect(user).toMatchObject({ name: "octo", email: "", image: "https://avatars.example.com/987654" });
    const account = await service.runtime.database.db
      .selectFrom("accounts")
      .select("providerUserId")
      .where("userId", "=", user.id)
      .executeTakeFirstOrThrow();
    expect(account.providerUserId).toBe("987654");
  });

  it("makes a user listed in ADMIN_EMAILS (any case) an admin, and keeps an admin admin", async () => {
    provider.profile = { sub: "boss-1", name: "Boss", email: "boss@EXAMPLE.com" };
    const flow = await browserSignIn(service);
    const session = await service.app.inject({
      method: "GET",
      url: "/auth/session",
      cookies: { [SESSION_COOKIE]: flow.sessionToken! },
    });
    expect(session.json().user.role).toBe("admin");

    // A listed email that the provider says is unverified does not grant admin.
    provider.profile = { sub: "impostor", name: "Impostor", email: "boss@example.com", email_verified: false };
    const impostor = await browserSignIn(service);
    const impostorSession = await service.app.inject({
      method: "GET",
      url: "/auth/session",
      cookies: { [SESSION_COOKIE]: impostor.sessionToken! },
    });
    expect(impostorSession.json().user.role).toBe("user");

    // Someone made admin another way stays admin when signing in with an unlisted email.
    provider.profile = { sub: "promoted", name: "Promoted", email: "promoted@example.com" };
    const promoted = await browserSignIn(service);
    const userId = (
      await service.app.inject({
        method: "GET",
        url: "/auth/session",
        cookies: { [SESSION_COOKIE]: promoted.sessionToken! },
      })
    ).json().user.id;
    await service.runtime.database.db.updateTable("users").set({ role: "admin" }).where("id", "=", userId).execute();
    const again = await browserSignIn(service);
    const role = (
      await service.app.inject({
        method: "GET",
        url: "/auth/session",
        cookies: { [SESSION_COOKIE]: again.sessionToken! },
      })
    ).json().user.role;
    expect(role).toBe("admin");
  });

  it("returns to a validated redirectTo", async () => {
    const path = await browserSignIn(service, `?redirectTo=${encodeURIComponent("/modpacks/my?page=2")}`);
    expect(path.callback.headers.location).toBe("/modpacks/my?page=2");
    const own = await browserSignIn(service, `?redirectTo=${encodeURIComponent("http://localhost:3000/docs")}`);
    expect(own.callback.headers.location).toBe("http://localhost:3000/docs");
  });

  it.each([
    "//evil.com",
    "https://evil.com",
    "/\\evil.com",
    "javascript:alert(document.cookie)",
    "https://evil.com/http://localhost:3000/",
  ])("ignores the open-redirect attempt %j and lands on /", async (target) => {
    const flow = await browserSignIn(service, `?redirectTo=${encodeURIComponent(target)}`);
    expect(flow.callback.statusCode).toBe(302);
    expect(flow.callback.headers.location).toBe("/");
    expect(flow.sessionToken).toBeTruthy();
  });
});

describe("a failed sign-in creates no session", () => {
  async function expectFailure(
    run: () => Promise<{ statusCode: number; json(): unknown; cookies: Array<{ name: string; value: string }> }>,
    status: number,
    code: string,
  ) {
    const before = await sessionCount();
    const response = await run();
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ error: { message: expect.any(String), code } });
    expect(response.cookies.find((cookie) => cookie.name === SESSION_COOKIE && cookie.value)).toBeUndefined();
    expect(await sessionCount()).toBe(before);
    return response;
  }

  it("a forged state → 400", async () => {
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    back.searchParams.set("state", "forged-state-value-forged-state-value-forged");
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 400, "BAD_REQUEST");
  });

  it("a missing state parameter → 400", async () => {
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    back.searchParams.delete("state");
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 400, "BAD_REQUEST");
  });

  it("no state cookie → 400", async () => {
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    const response = await expectFailure(() => finishSignIn(service, back, undefined), 400, "BAD_REQUEST");
    expect((response.json() as { error: { message: string } }).error.message).toMatch(/state/i);
  });

  it("another sign-in's state cookie → 400", async () => {
    const mine = await startSignIn(service);
    const other = await startSignIn(service);
    const back = await visitProvider(mine.location);
    await expectFailure(() => finishSignIn(service, back, other.stateCookie), 400, "BAD_REQUEST");
  });

  it("a tampered state cookie → 400", async () => {
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    const [payload] = start.stateCookie.split(".");
    await expectFailure(() => finishSignIn(service, back, `${payload}.AAAA`), 400, "BAD_REQUEST");
  });

  it("consent refused (?error=access_denied) → 400", async () => {
    provider.authorize = "deny";
    const exchanges = provider.tokenRequests.length;
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    expect(back.searchParams.get("error")).toBe("access_denied");
    const response = await expectFailure(() => finishSignIn(service, back, start.stateCookie), 400, "BAD_REQUEST");
    expect((response.json() as { error: { message: string } }).error.message).toContain("access_denied");
    expect(provider.tokenRequests.length).toBe(exchanges);
  });

  it("a replayed authorization code → 400 (the provider says invalid_grant)", async () => {
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    const first = await finishSignIn(service, back, start.stateCookie);
    expect(first.statusCode).toBe(302);
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 400, "BAD_REQUEST");
  });

  it("the token endpoint answering 500 → 502", async () => {
    provider.token = 500;
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 502, "BAD_GATEWAY");
  });

  it("the token endpoint answering something other than JSON → 502", async () => {
    provider.token = "garbage";
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 502, "BAD_GATEWAY");
  });

  it("the userinfo endpoint answering 500 → 502", async () => {
    provider.userinfo = 500;
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 502, "BAD_GATEWAY");
  });

  it("the userinfo endpoint answering bad JSON → 502", async () => {
    provider.userinfo = "garbage";
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 502, "BAD_GATEWAY");
  });

  it("a profile without an id → 502", async () => {
    provider.profile = { name: "Nobody", email: "nobody@example.com" };
    const start = await startSignIn(service);
    const back = await visitProvider(start.location);
    await expectFailure(() => finishSignIn(service, back, start.stateCookie), 502, "BAD_GATEWAY");
  });

  it("an unreachable provider → 502", async () => {
    const gone = await startFakeProvider();
    const other = await startTestService({ env: gone.env });
    try {
      const start = await startSignIn(other);
      const back = await visitProvider(start.location);
      await gone.close();
      const response = await finishSignIn(other, back, start.stateCookie);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toEqual({ error: { message: expect.any(String), code: "BAD_GATEWAY" } });
      expect(sessionTokenOf(response)).toBeUndefined();
    } finally {
      await other.stop();
    }
  });
});

describe("cookie attributes by configuration", () => {
  it("SameSite=None; Secure when ORIGIN_ALLOWED lists another site", async () => {
    const crossSite = await startTestService({
      env: { ...provider.env, ORIGIN_ALLOWED: "https://modpacks-ui.example.net" },
    });
    try {
      const flow = await browserSignIn(crossSite);
      expect(setCookieHeaders(flow.callback)).toContain(
        `${SESSION_COOKIE}=${flow.sessionToken}; Max-Age=300; Path=/; HttpOnly; Secure; SameSite=None`,
      );
    } finally {
      await crossSite.stop();
    }
  });

  it("Secure in production", async () => {
    const production = await startTestService({
      env: {
        ...provider.env,
        NODE_ENV: "production",
        PUBLIC_URL: "https://modpacks.example.com",
        WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
      },
    });
    try {
      const start = await startSignIn(production);
      expect(setCookieHeaders(start.response)[0]).toBe(
        `${STATE_COOKIE}=${start.stateCookie}; Max-Age=600; Path=/auth; HttpOnly; Secure; SameSite=Lax`,
      );
      expect(start.location.searchParams.get("redirect_uri")).toBe("https://modpacks.example.com/auth/idp/callback");
      const back = await visitProvider(start.location);
      const callback = await finishSignIn(production, back, start.stateCookie);
      expect(callback.statusCode).toBe(302);
      expect(setCookieHeaders(callback)).toContain(
        `${SESSION_COOKIE}=${sessionTokenOf(callback)}; Max-Age=300; Path=/; HttpOnly; Secure; SameSite=Lax`,
      );
      // No development identity provider in production.
      const devIdp = await production.app.inject({ method: "GET", url: "/dev-idp/authorize" });
      expect(devIdp.statusCode).toBe(404);
    } finally {
      await production.stop();
    }
  });
});

describe("OpenAPI", () => {
  it("documents the sign-in routes and stays a valid document", async () => {
    const response = await service.app.inject({ method: "GET", url: "/openapi.json" });
    const document = response.json();
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
    const start = document.paths["/auth/idp"].get;
    expect(start.operationId).toBe("startSignIn");
    expect(start.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(["redirectTo"]);
    // Besides the redirect, what the HTTP layer answers: a NUL in a parameter, sign-in's rate limit, an unavailable database.
    expect(Object.keys(start.responses)).toEqual(["302", "400", "429", "503"]);
    const callback = document.paths["/auth/idp/callback"].get;
    expect(callback.summary).toBeTruthy();
    expect(callback.description).toBeTruthy();
    expect(Object.keys(callback.responses).sort()).toEqual(["302", "400", "429", "502", "503"]);
    for (const status of ["400", "502"]) {
      expect(callback.responses[status].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/Error",
      });
    }
    // With a real provider configured there is no development identity provider to document.
    expect(document.paths["/dev-idp/token"]).toBeUndefined();
  });
});
