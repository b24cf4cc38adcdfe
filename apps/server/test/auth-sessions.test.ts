import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { setCookieHeaders } from "./support/oauth-flow.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const MINUTE = 60 * 1000;
const UNAUTHORIZED = '{"message":"Unauthorized"}';
const NO_PERMISSION = '{"message":"Do not have permission"}';

let now = Date.now();
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    clock: () => now,
    env: { ORIGIN_ALLOWED: "http://localhost:5173" },
  });
});
afterAll(() => service?.stop());

function session(user: { token: string }) {
  return service.app.inject({ method: "GET", url: "/auth/session", cookies: { [SESSION_COOKIE]: user.token } });
}

async function storedExpiry(token: string): Promise<number> {
  const { hashSecret } = await import("../src/auth/secrets.js");
  const row = await service.runtime.database.db
    .selectFrom("sessions")
    .select("expiresAt")
    .where("tokenHash", "=", hashSecret(token))
    .executeTakeFirst();
  return row ? row.expiresAt.getTime() : Number.NaN;
}

async function sessionRowExists(token: string): Promise<boolean> {
  return !Number.isNaN(await storedExpiry(token));
}

describe("sliding expiry", () => {
  it("keeps a session alive with activity, writes the expiry at most every 30 s, and ends it after 5 idle minutes", async () => {
    const start = now;
    const user = await signIn(service);
    expect(await storedExpiry(user.token)).toBe(start + 5 * MINUTE);

    now = start + 4 * MINUTE;
    const refreshed = await session(user);
    expect(refreshed.statusCode).toBe(200);
    expect(setCookieHeaders(refreshed)).toContain(
      `${SESSION_COOKIE}=${user.token}; Max-Age=300; Path=/; HttpOnly; SameSite=Lax`,
    );
    expect(Date.parse(refreshed.json().session.expiresAt)).toBe(now + 5 * MINUTE);
    expect(await storedExpiry(user.token)).toBe(start + 9 * MINUTE);

    // Within 30 s of the last write, requests slide the expiry without writing it.
    for (const offset of [5_000, 10_000, 20_000, 29_000]) {
      now = start + 4 * MINUTE + offset;
      const response = await session(user);
      expect(response.statusCode).toBe(200);
      expect(Date.parse(response.json().session.expiresAt)).toBe(now + 5 * MINUTE);
      expect(await storedExpiry(user.token)).toBe(start + 9 * MINUTE);
    }
    now = start + 4 * MINUTE + 31_000;
    expect((await session(user)).statusCode).toBe(200);
    expect(await storedExpiry(user.token)).toBe(now + 5 * MINUTE);

    // Idle for more than 5 minutes: gone, with the exact 401 body, and the cookie is cleared.
    now += 5 * MINUTE + 1_000;
    const expired = await session(user);
    expect(expired.statusCode).toBe(401);
    expect(expired.body).toBe(UNAUTHORIZED);
    expect(setCookieHeaders(expired).some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=;`))).toBe(true);
    expect(await sessionRowExists(user.token)).toBe(false);
  });

  it("trusts the slid expiry over a lagging database value when the cache is refreshed", async () => {
    const start = now;
    const user = await signIn(service);
    now = start + 4 * MINUTE;
    expect((await session(user)).statusCode).toBe(200); // written: start + 9 min
    now = start + 4 * MINUTE + 20_000;
    expect((await session(user)).statusCode).toBe(200); // slid to start + 9 min 20 s, not written
    expect(await storedExpiry(user.token)).toBe(start + 9 * MINUTE);
    // Past the stored expiry but within the slid one, and past the 5-minute cache age: still alive.
    now = start + 9 * MINUTE + 10_000;
    expect((await session(user)).statusCode).toBe(200);
  });

  it("ends a session that is never used after 5 minutes", async () => {
    const user = await signIn(service);
    now += 5 * MINUTE;
    const response = await session(user);
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe(UNAUTHORIZED);
  });
});

describe("401 and 403 bodies", () => {
  it.each([
    ["no credentials", {}],
    ["an unknown cookie", { cookie: `${SESSION_COOKIE}=${"x".repeat(52)}` }],
    ["a malformed cookie", { cookie: `${SESSION_COOKIE}=short` }],
    ["an unknown Bearer session token", { authorization: `Bearer ${"y".repeat(52)}` }],
    ["an unknown Bearer API token", { authorization: `Bearer mcs_${"z".repeat(52)}` }],
  ])('answers %s with exactly {"message":"Unauthorized"}', async (_label, headers) => {
    const response = await service.app.inject({ method: "GET", url: "/auth/session", headers });
    expect(response.statusCode).toBe(401);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.body).toBe(UNAUTHORIZED);
  });

  it('answers a role without the permission with exactly {"message":"Do not have permission"}', async () => {
    const user = await signIn(service);
    const response = await service.app.inject({ method: "GET", url: "/admin/users", headers: user.headers });
    expect(response.statusCode).toBe(403);
    expect(response.body).toBe(NO_PERMISSION);
    const admin = await signIn(service, { role: "admin" });
    const allowed = await service.app.inject({ method: "GET", url: "/admin/users", headers: admin.headers });
    expect([401, 403]).not.toContain(allowed.statusCode);
  });
});

describe("sign-out", () => {
  it("ends the session at once and clears the cookie", async () => {
    const user = await signIn(service);
    expect((await session(user)).statusCode).toBe(200); // cached now
    const out = await service.app.inject({ method: "POST", url: "/auth/sign-out", headers: user.headers });
    expect(out.statusCode).toBe(204);
    expect(setCookieHeaders(out).some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=;`))).toBe(true);
    const after = await session(user);
    expect(after.statusCode).toBe(401);
    expect(after.body).toBe(UNAUTHORIZED);
    expect(await sessionRowExists(user.token)).toBe(false);
  });

  it("ends a session signed out with the token as Bearer", async () => {
    const user = await signIn(service);
    const out = await service.app.inject({
      method: "POST",
      url: "/auth/sign-out",
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(out.statusCode).toBe(204);
    expect((await session(user)).statusCode).toBe(401);
  });
});

describe("API tokens", () => {
  let owner: SignedIn;
  let created: { id: string; token: string; name: string; lastUsedAt: string | null };

  beforeAll(async () => {
    owner = await signIn(service);
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it("creates a token and shows the secret once", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/auth/tokens",
      headers: owner.headers,
      payload: { name: "CI deploy" },
    });
    expect(response.statusCode).toBe(201);
    created = response.json();
    expect(created).toEqual({
      id: expect.any(String),
      name: "CI deploy",
      token: expect.stringMatching(/^mcs_[a-z2-7]{52}$/),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastUsedAt: null,
      scopes: ["read", "write"],
      modpackIds: null,
    });
    const row = await service.runtime.database.db
      .selectFrom("apiTokens")
      .select("tokenHash")
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(row.tokenHash).not.toContain(created.token);
  });

  it("lists tokens without their secrets", async () => {
    const response = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: owner.headers });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(created.token);
    const listed = response.json().data.find((token: { id: string }) => token.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      name: "CI deploy",
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastUsedAt: null,
      scopes: ["read", "write"],
      modpackIds: null,
    });
  });

  it("authenticates with the token as Bearer and tracks lastUsedAt", async () => {
    const response = await service.app.inject({ method: "GET", url: "/auth/session", headers: bearer(created.token) });
    expect(response.statusCode).toBe(200);
    expect(response.json().session.id).toBe(created.id);
    expect(response.json().user.id).toBe(owner.userId);
    expect(response.headers["set-cookie"]).toBeUndefined();
    const list = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: owner.headers });
    const listed = list.json().data.find((token: { id: string }) => token.id === created.id);
    expect(listed.lastUsedAt).toBe(new Date(now).toISOString());
  });

  it("answers 404 for another user's token and leaves it working", async () => {
    const other = await signIn(service);
    const response = await service.app.inject({
      method: "DELETE",
      url: `/auth/tokens/${created.id}`,
      headers: other.headers,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: { message: expect.any(String), code: "NOT_FOUND" } });
    const still = await service.app.inject({ method: "GET", url: "/auth/session", headers: bearer(created.token) });
    expect(still.statusCode).toBe(200);
  });

  it("revokes a token (204) and refuses it at once", async () => {
    // The token is cached from its previous uses.
    const response = await service.app.inject({
      method: "DELETE",
      url: `/auth/tokens/${created.id}`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    const after = await service.app.inject({ method: "GET", url: "/auth/session", headers: bearer(created.token) });
    expect(after.statusCode).toBe(401);
    expect(after.body).toBe(UNAUTHORIZED);
    const list = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: owner.headers });
    expect(list.json().data.map((token: { id: string }) => token.id)).not.toContain(created.id);
  });

  it("refuses an expired token", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/auth/tokens",
      headers: owner.headers,
      payload: { name: "short-lived", expiresInDays: 1 },
    });
    expect(response.statusCode).toBe(201);
    const { token } = response.json();
    expect((await service.app.inject({ method: "GET", url: "/auth/session", headers: bearer(token) })).statusCode).toBe(
      200,
    );
    now += 24 * 60 * MINUTE + 1_000;
    const expired = await service.app.inject({ method: "GET", url: "/auth/session", headers: bearer(token) });
    expect(expired.statusCode).toBe(401);
    expect(expired.body).toBe(UNAUTHORIZED);
  });
});

describe("the cross-site Origin check", () => {
  const create = (headers: Record<string, string>) =>
    service.app.inject({ method: "POST", url: "/auth/tokens", headers, payload: { name: "origin check" } });

  it("refuses a cookie POST from a foreign origin with 403", async () => {
    const user = await signIn(service);
    const before = await service.runtime.database.db
      .selectFrom("apiTokens")
      .select("id")
      .where("userId", "=", user.userId)
      .execute();
    const response = await create({ ...user.headers, origin: "https://evil.example.net" });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: { message: expect.any(String), code: "FORBIDDEN" } });
    const after = await service.runtime.database.db
      .selectFrom("apiTokens")
      .select("id")
      .where("userId", "=", user.userId)
      .execute();
    expect(after).toEqual(before);
  });

  it("allows the same POST with a Bearer token from any origin", async () => {
    const user = await signIn(service);
    const response = await create({ authorization: `Bearer ${user.token}`, origin: "https://evil.example.net" });
    expect(response.statusCode).toBe(201);
  });

  it("allows a cookie POST from a listed origin and from the service's own origin", async () => {
    const user = await signIn(service);
    expect((await create({ ...user.headers, origin: "http://localhost:5173" })).statusCode).toBe(201);
    expect((await create({ ...user.headers, origin: "http://localhost:3000" })).statusCode).toBe(201);
  });
});

describe("sign-out across instances sharing a database", () => {
  const shared = Boolean(process.env.DATABASE_URL);
  if (!shared) {
    console.info(
      "auth-sessions: skipping the second-instance sign-out check: DATABASE_URL is unset, and two instances cannot share one embedded (PGlite) database.",
    );
  }

  it.skipIf(!shared)("ends the session on a second instance at once (NOTIFY), despite its cache", async () => {
    const first = await startTestService();
    const second = await startTestService({ database: first.database });
    try {
      const user = await signIn(first);
      const warm = await second.app.inject({ method: "GET", url: "/auth/session", headers: user.headers });
      expect(warm.statusCode).toBe(200); // now in the second instance's cache
      const out = await first.app.inject({ method: "POST", url: "/auth/sign-out", headers: user.headers });
      expect(out.statusCode).toBe(204);
      let status = 200;
      let body = "";
      const deadline = Date.now() + 2_000;
      while (Date.now() < deadline) {
        const response = await second.app.inject({ method: "GET", url: "/auth/session", headers: user.headers });
        status = response.statusCode;
        body = response.body;
        if (status === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(status).toBe(401);
      expect(body).toBe(UNAUTHORIZED);

      // A revoked API token is refused on the other instance as well.
      const other = await signIn(first);
      const created = await first.app.inject({
        method: "POST",
        url: "/auth/tokens",
        headers: other.headers,
        payload: { name: "shared" },
      });
      const { id, token } = created.json();
      const headers = { authorization: `Bearer ${token}` };
      expect((await second.app.inject({ method: "GET", url: "/auth/session", headers })).statusCode).toBe(200);
      expect(
        (await first.app.inject({ method: "DELETE", url: `/auth/tokens/${id}`, headers: other.headers })).statusCode,
      ).toBe(204);
      let tokenStatus = 200;
      const tokenDeadline = Date.now() + 2_000;
      while (Date.now() < tokenDeadline) {
        tokenStatus = (await second.app.inject({ method: "GET", url: "/auth/session", headers })).statusCode;
        if (tokenStatus === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(tokenStatus).toBe(401);
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});

describe("the session cache", () => {
  it("trusts a looked-up session for 5 minutes, then reads the store again", async () => {
    const user = await signIn(service);
    const stats = () =>
      service.app.inject({ method: "GET", url: "/admin/stats", cookies: { [SESSION_COOKIE]: user.token } });
    expect((await stats()).statusCode).toBe(403); // cached now, with role `user`
    // The role changes behind the cache's back (no revocation message): the cached lookup still answers.
    await service.runtime.database.db
      .updateTable("users")
      .set({ role: "admin" })
      .where("id", "=", user.userId)
      .execute();
    now += 4 * MINUTE;
    expect((await stats()).statusCode).toBe(403);
    // Past the cache's 5 minutes (the session itself slid along with each request): read again.
    now += 1.5 * MINUTE;
    expect((await stats()).statusCode).toBe(200);
  });
});
