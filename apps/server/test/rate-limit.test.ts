import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

describe("rate limits over HTTP", () => {
  let limited: TestService;
  let unlimited: TestService;
  let alice: SignedIn;
  let bob: SignedIn;

  beforeAll(async () => {
    limited = await startTestService({
      role: "api",
      env: {
        RATE_LIMIT_PER_MINUTE: "5",
        RATE_LIMIT_SIGN_IN_PER_MINUTE: "2",
        RATE_LIMIT_WORKSHOP_PER_MINUTE: "2",
        RATE_LIMIT_MEMBER_ADD_PER_MINUTE: "2",
        RATE_LIMIT_WEBHOOK_PER_MINUTE: "2",
      },
    });
    unlimited = await startTestService({
      role: "api",
      env: {
        RATE_LIMIT_PER_MINUTE: "0",
        RATE_LIMIT_SIGN_IN_PER_MINUTE: "0",
        RATE_LIMIT_WORKSHOP_PER_MINUTE: "0",
        RATE_LIMIT_MEMBER_ADD_PER_MINUTE: "0",
        RATE_LIMIT_WEBHOOK_PER_MINUTE: "0",
      },
    });
    alice = await signIn(limited, { name: "Alice" });
    bob = await signIn(limited, { name: "Bob" });
  });
  afterAll(async () => {
    await limited?.stop();
    await unlimited?.stop();
  });

  const call = (
    service: TestService,
    method: "GET" | "POST",
    url: string,
    options: { headers?: Record<string, string>; ip?: string; payload?: unknown } = {},
  ) =>
    service.app.inject({
      method,
      url,
      headers: options.headers ?? {},
      remoteAddress: options.ip ?? "192.0.2.1",
      ...(options.payload === undefined ? {} : { payload: options.payload as Record<string, unknown> }),
    });

  function expectLimited(response: Awaited<ReturnType<typeof call>>, limit: number) {
    expect(response.statusCode).toBe(429);
    expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(response.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(response.headers["x-ratelimit-limit"]).toBe(String(limit));
    expect(response.headers["x-ratelimit-remaining"]).toBe("0");
    expect(response.headers["x-ratelimit-reset"]).toBeDefined();
    expect(response.json()).toEqual({
      error: { message: expect.stringMatching(/^Too many requests, retry in /), code: "TOO_MANY_REQUESTS" },
    });
  }

  it("limits anonymous callers per IP and signed-in callers per user", async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await call(limited, "GET", "/modpacks/public", { ip: "192.0.2.10" });
      statuses.push(response.statusCode);
      expect(response.headers["x-ratelimit-remaining"]).toBe(String(4 - index));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expectLimited(await call(limited, "GET", "/modpacks/public", { ip: "192.0.2.10" }), 5);
    // Another IP, and a signed-in user on the same IP, have their own budgets.
    expect((await call(limited, "GET", "/modpacks/public", { ip: "192.0.2.11" })).statusCode).toBe(200);
    for (let index = 0; index < 5; index++) {
      const response = await call(limited, "GET", "/modpacks/my", { ip: "192.0.2.10", headers: alice.headers });
      expect(response.statusCode).toBe(200);
    }
    // The user's budget follows them to another IP; another user is untouched.
    expectLimited(await call(limited, "GET", "/modpacks/my", { ip: "192.0.2.99", headers: alice.headers }), 5);
    expectLimited(
      await call(limited, "GET", "/trpc/modpacks.listMine", { ip: "192.0.2.98", headers: alice.headers }),
      5,
    );
    expect((await call(limited, "GET", "/modpacks/my", { ip: "192.0.2.10", headers: bob.headers })).statusCode).toBe(
      200,
    );
  });

  it.each([
    { name: "adding a mod (REST)", method: "POST" as const, url: "/mods", payload: {}, allowed: 400 },
    { name: "adding a mod (tRPC)", method: "POST" as const, url: "/trpc/mods.create", payload: {}, allowed: 400 },
    {
      name: "adding a member (by email or id)",
      method: "POST" as const,
      url: "/modpacks/0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d/members",
      payload: { email: "someone@example.com", permission: ["read"] },
      allowed: 404,
    },
    {
      name: "adding a webhook",
      method: "POST" as const,
      url: "/modpacks/0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d/webhooks",
      payload: { url: "https://hooks.example.com/x" },
      allowed: 404,
    },
    {
      name: "sending a webhook's test event",
      method: "POST" as const,
      url: "/modpacks/0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d/webhooks/0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d/test",
      payload: {},
      allowed: 404,
    },
  ])(
    "allows fewer Steam-calling operations, member additions and webhook creations and tests: $name",
    async ({ method, url, payload, allowed }) => {
      const user = await signIn(limited);
      const first = await call(limited, method, url, { headers: user.headers, payload });
      const second = await call(limited, method, url, { headers: user.headers, payload });
      expect([first.statusCode, second.statusCode]).toEqual([allowed, allowed]);
      expectLimited(await call(limited, method, url, { headers: user.headers, payload }), 2);
      // Other requests of the same user still pass.
      expect((await call(limited, "GET", "/modpacks/my", { headers: user.headers })).statusCode).toBe(200);
    },
  );

  it("counts every call of a batched /trpc request against the limit of its kind", async () => {
    const batch = (count: number) => ({
      url: `/trpc/${Array.from({ length: count }, () => "mods.create").join(",")}?batch=1`,
      payload: Object.fromEntries(Array.from({ length: count }, (_, index) => [String(index), {}])),
    });
    const user = await signIn(limited);
    // Two Steam-calling calls in one request use up the budget of two...
    const two = await call(limited, "POST", batch(2).url, { headers: user.headers, payload: batch(2).payload });
    expect(two.statusCode).not.toBe(429);
    expect(two.headers["x-ratelimit-remaining"]).toBe("0");
    expectLimited(await call(limited, "POST", "/trpc/mods.create", { headers: user.headers, payload: {} }), 2);
    // ...and a batch holding more calls than the limit is refused whole, before any call runs.
    const other = await signIn(limited);
    expectLimited(await call(limited, "POST", batch(3).url, { headers: other.headers, payload: batch(3).payload }), 2);
    // Plain calls of the same user count against the general limit, one per call in a batch too.
    const reads = "/trpc/modpacks.listMine,modpacks.listMine,modpacks.listMine?batch=1";
    const three = await call(limited, "GET", `${reads}&input=${encodeURIComponent("{}")}`, { headers: user.headers });
    expect(three.statusCode).not.toBe(429);
    expect(three.headers["x-ratelimit-remaining"]).toBe("2");
  });

  it("allows fewer sign-in attempts per IP", async () => {
    const first = await call(limited, "GET", "/auth/idp", { ip: "198.51.100.7" });
    const second = await call(limited, "GET", "/auth/idp", { ip: "198.51.100.7" });
    expect([first.statusCode, second.statusCode]).toEqual([302, 302]);
    expectLimited(await call(limited, "GET", "/auth/idp", { ip: "198.51.100.7" }), 2);
    expect((await call(limited, "GET", "/auth/idp", { ip: "198.51.100.8" })).statusCode).toBe(302);
  });

  it("never limits the health check", async () => {
    for (let index = 0; index < 8; index++) {
      expect((await call(limited, "GET", "/health", { ip: "198.51.100.20" })).statusCode).toBe(200);
    }
  });

  it("turns every limit off with 0", async () => {
    for (let index = 0; index < 12; index++) {
      const response = await call(unlimited, "GET", "/modpacks/public", { ip: "203.0.113.5" });
      expect(response.statusCode).toBe(200);
      expect(response.headers["x-ratelimit-limit"]).toBeUndefined();
      const idp = await call(unlimited, "GET", "/auth/idp", { ip: "203.0.113.5" });
      expect(idp.statusCode).toBe(302);
    }
  });
});
