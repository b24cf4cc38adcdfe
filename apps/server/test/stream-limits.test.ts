import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNotifications } from "../src/db/notifications.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const DAY_MS = 24 * 60 * 60 * 1000;
let offset = 0;
let service: TestService;
let baseUrl: string;
let admin: SignedIn;

beforeAll(async () => {
  service = await startTestService({
    clock: () => Date.now() + offset,
    env: { STREAM_BUFFER_BYTES: "1024" },
  });
  baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
  admin = await signIn(service, { name: "Admin", role: "admin" });
});
afterAll(() => service.stop());

interface OpenStream {
  /** Resolves with everything received once the server ends the stream. */
  ended: Promise<string>;
  /** Resolves once `text` has arrived. */
  received(text: string): Promise<void>;
  close(): void;
}

/** Opens `GET /notifications/stream` (or the tRPC subscription) and reads it until the server ends it. */
async function openStream(
  url: string,
  headers: Record<string, string>,
  path = "/notifications/stream",
): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${url}${path}`, {
    headers: { ...headers, accept: "text/event-stream" },
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
        for (const waiter of waiters.filter((item) => text.includes(item.text))) waiter.resolve();
      }
    } catch {
      return text;
    }
  })();
  return {
    ended,
    received: (wanted) =>
      text.includes(wanted) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text: wanted, resolve })),
    close: () => controller.abort(),
  };
}

const notify = (userId: string, title: string) =>
  createNotifications(service.runtime.database.db, [{ userId, title, content: "Pushed", type: "info", metadata: {} }]);

/** True when the stream is still delivering: a fresh notification reaches it. */
async function stillDelivers(stream: OpenStream, userId: string): Promise<boolean> {
  const title = `Probe ${Math.random()}`;
  await notify(userId, title);
  return Promise.race([stream.received(title).then(() => true), stream.ended.then(() => false)]);
}

async function stillDeliversOn(target: TestService, stream: OpenStream, userId: string): Promise<boolean> {
  const title = `Probe ${Math.random()}`;
  await createNotifications(target.runtime.database.db, [
    { userId, title, content: "Pushed", type: "info", metadata: {} },
  ]);
  return Promise.race([stream.received(title).then(() => true), stream.ended.then(() => false)]);
}

async function createToken(user: SignedIn, expiresInDays = 30): Promise<{ id: string; token: string }> {
  const response = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    headers: user.headers,
    payload: { name: "stream", expiresInDays },
  });
  expect(response.statusCode).toBe(201);
  return response.json();
}

describe("a live stream ends with its credential", () => {
  const cases: Array<{
    name: string;
    path?: string;
    credential: (
      user: SignedIn,
    ) => Promise<{ headers: Record<string, string>; end: (stream: OpenStream) => Promise<unknown> }>;
  }> = [
    {
      name: "sign-out of its cookie session",
      credential: async (user) => ({
        headers: user.headers,
        end: () => service.app.inject({ method: "POST", url: "/auth/sign-out", headers: user.headers }),
      }),
    },
    {
      name: "sign-out of its session sent as Bearer",
      credential: async (user) => ({
        headers: { authorization: `Bearer ${user.token}` },
        end: () =>
          service.app.inject({
            method: "POST",
            url: "/auth/sign-out",
            headers: { authorization: `Bearer ${user.token}` },
          }),
      }),
    },
    {
      name: "revocation of its API token",
      credential: async (user) => {
        const token = await createToken(user);
        return {
          headers: { authorization: `Bearer ${token.token}` },
          end: () => service.app.inject({ method: "DELETE", url: `/auth/tokens/${token.id}`, headers: user.headers }),
        };
      },
    },
    {
      name: "a change of its user's role",
      credential: async (user) => ({
        headers: user.headers,
        end: () =>
          service.app.inject({
            method: "PATCH",
            url: `/admin/users/${user.userId}`,
            headers: admin.headers,
            payload: { role: "admin" },
          }),
      }),
    },
    {
      name: "a change of its user's role (tRPC subscription)",
      path: "/trpc/notifications.stream",
      credential: async (user) => ({
        headers: user.headers,
        end: () =>
          service.app.inject({
            method: "PATCH",
            url: `/admin/users/${user.userId}`,
            headers: admin.headers,
            payload: { role: "admin" },
          }),
      }),
    },
    {
      name: "sign-out (tRPC subscription)",
      path: "/trpc/notifications.stream",
      credential: async (user) => ({
        headers: user.headers,
        end: () => service.app.inject({ method: "POST", url: "/auth/sign-out", headers: user.headers }),
      }),
    },
    {
      name: "expiry of its API token",
      credential: async (user) => {
        const token = await createToken(user, 1);
        // The token has one second left when the stream opens.
        offset += DAY_MS - 1000;
        return { headers: { authorization: `Bearer ${token.token}` }, end: (stream) => stream.ended };
      },
    },
  ];

  it.each(cases)("on $name, at once, with nothing delivered after", async ({ path, credential }) => {
    const user = await signIn(service);
    const { headers, end } = await credential(user);
    const stream = await openStream(baseUrl, headers, path);
    try {
      await notify(user.userId, "Before");
      await stream.received("Before");
      await end(stream);
      await notify(user.userId, "After");
      const text = await stream.ended;
      expect(text).toContain("Before");
      expect(text).not.toContain("After");
    } finally {
      stream.close();
      offset = 0;
    }
  });

  it("keeps streams of other sessions of the same user", async () => {
    const user = await signIn(service);
    const other = await service.runtime.sessions.createSession(user.userId);
    const ending = await openStream(baseUrl, user.headers);
    const staying = await openStream(baseUrl, { authorization: `Bearer ${other.token}` });
    try {
      expect(await stillDelivers(staying, user.userId)).toBe(true);
      await service.app.inject({ method: "POST", url: "/auth/sign-out", headers: user.headers });
      await ending.ended;
      expect(await stillDelivers(staying, user.userId)).toBe(true);
    } finally {
      ending.close();
      staying.close();
    }
  });
});

describe("stream bounds", () => {
  let bounded: TestService;
  let boundedUrl: string;
  beforeAll(async () => {
    bounded = await startTestService({ env: { STREAMS_PER_USER: "2", STREAMS_MAX: "3" } });
    boundedUrl = await bounded.app.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(() => bounded.stop());

  it("closes a user's oldest stream past the per-user bound, and the oldest of all past the global cap", async () => {
    const alice = await signIn(bounded);
    const bob = await signIn(bounded);
    const streams: OpenStream[] = [];
    try {
      const a1 = await openStream(boundedUrl, alice.headers);
      const a2 = await openStream(boundedUrl, alice.headers);
      streams.push(a1, a2);
      expect(await stillDeliversOn(bounded, a1, alice.userId)).toBe(true);
      const a3 = await openStream(boundedUrl, alice.headers);
      streams.push(a3);
      await a1.ended;
      expect(await stillDeliversOn(bounded, a2, alice.userId)).toBe(true);
      expect(await stillDeliversOn(bounded, a3, alice.userId)).toBe(true);
      // Bob's second makes four of a cap of three: the oldest of all (Alice's second) closes.
      const b1 = await openStream(boundedUrl, bob.headers);
      const b2 = await openStream(boundedUrl, bob.headers);
      streams.push(b1, b2);
      await a2.ended;
      const b3 = await openStream(boundedUrl, bob.headers);
      streams.push(b3);
      await b1.ended;
      expect(await stillDeliversOn(bounded, a3, alice.userId)).toBe(true);
      expect(await stillDeliversOn(bounded, b2, bob.userId)).toBe(true);
      expect(await stillDeliversOn(bounded, b3, bob.userId)).toBe(true);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("delivers to a user's new stream when opening it closed their only other one", async () => {
    const single = await startTestService({ env: { STREAMS_PER_USER: "1" } });
    const singleUrl = await single.app.listen({ port: 0, host: "127.0.0.1" });
    const carol = await signIn(single);
    const streams: OpenStream[] = [];
    try {
      const c1 = await openStream(singleUrl, carol.headers);
      const c2 = await openStream(singleUrl, carol.headers);
      streams.push(c1, c2);
      await c1.ended;
      const title = `Probe ${Math.random()}`;
      await createNotifications(single.runtime.database.db, [
        { userId: carol.userId, title, content: "Pushed", type: "info", metadata: {} },
      ]);
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("nothing within 5 s"), 5000).unref());
      expect(await Promise.race([c2.received(title).then(() => "delivered"), timeout])).toBe("delivered");
    } finally {
      for (const stream of streams) stream.close();
      await single.stop();
    }
  });

  it("drops a client that does not read once its send buffer passes the bound", async () => {
    const reader = await signIn(service);
    const response = await fetch(`${baseUrl}/notifications/stream`, { headers: reader.headers });
    expect(response.status).toBe(200);
    // The client reads nothing while far more than any socket buffer is sent its way.
    const content = "x".repeat(8192);
    for (let batch = 0; batch < 10; batch++) {
      await createNotifications(
        service.runtime.database.db,
        Array.from({ length: 200 }, (_, index) => ({
          userId: reader.userId,
          title: `Flood ${batch}-${index}`,
          content,
          type: "info" as const,
          metadata: {},
        })),
      );
    }
    // The server gave up on it: reading now ends early instead of receiving all 2,000.
    const body = response.body?.getReader();
    if (!body) throw new Error("no body");
    let received = "";
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await body.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
      }
    } catch {
      // The connection was cut: what arrived before is all there is.
    }
    const events = received.split("event: notification").length - 1;
    expect(events).toBeLessThan(2000);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("across server instances (Postgres)", () => {
  it("ends a stream on another instance when the session signs out", async () => {
    const second = await startTestService({ database: service.database });
    try {
      const secondUrl = await second.app.listen({ port: 0, host: "127.0.0.1" });
      const user = await signIn(service);
      const stream = await openStream(secondUrl, user.headers);
      await notify(user.userId, "Before");
      await stream.received("Before");
      const signedOut = await service.app.inject({ method: "POST", url: "/auth/sign-out", headers: user.headers });
      expect(signedOut.statusCode).toBe(204);
      const text = await stream.ended;
      expect(text).toContain("Before");
      stream.close();
    } finally {
      await second.stop();
    }
  });
});
