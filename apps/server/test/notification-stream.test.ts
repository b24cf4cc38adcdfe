import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNotifications } from "../src/db/notifications.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let baseUrl: string;
let user: SignedIn;

beforeAll(async () => {
  service = await startTestService();
  baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
  user = await signIn(service, { name: "Listener" });
});
afterAll(() => service.stop());

/** Reads an SSE response until `predicate` matches the text received so far. */
async function readUntil(response: Response, predicate: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  const timer = setTimeout(() => reader.cancel().catch(() => {}), timeoutMs);
  try {
    while (!predicate(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
  return text;
}

const notify = (target: TestService, userId: string, title: string) =>
  createNotifications(target.runtime.database.db, [
    { userId, title, content: "Pushed", type: "info", metadata: { pushed: true } },
  ]);

describe("GET /notifications/stream", () => {
  it("pushes each new notification of the caller as an SSE event", async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/notifications/stream`, {
      headers: user.headers,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const other = await signIn(service);
    // No pause: the stream is subscribed before its headers arrive, so nothing after that is missed.
    const reading = readUntil(response, (text) => text.includes("Second"));
    await notify(service, other.userId, "Not for the listener");
    await notify(service, user.userId, "First");
    await notify(service, user.userId, "Second");
    const text = await reading;
    controller.abort();
    const events = text
      .split("\n\n")
      .filter((block) => block.includes("event: notification"))
      .map((block) =>
        JSON.parse(
          block
            .split("\n")
            .find((line) => line.startsWith("data: "))
            ?.slice(6) ?? "{}",
        ),
      );
    expect(events.map((event) => event.title)).toEqual(["First", "Second"]);
    expect(events[0]).toMatchObject({ userId: user.userId, type: "info", isRead: false, metadata: '{"pushed":true}' });
  });

  it("answers 401 without credentials", async () => {
    const response = await fetch(`${baseUrl}/notifications/stream`);
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('{"message":"Unauthorized"}');
  });

  it("delivers through the tRPC subscription (SSE) too", async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/trpc/notifications.stream`, {
      headers: { ...user.headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reading = readUntil(response, (text) => text.includes("Via tRPC"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await notify(service, user.userId, "Via tRPC");
    const text = await reading;
    controller.abort();
    expect(text).toContain('"title":"Via tRPC"');
  });

  it("does not hold up shutdown while a stream is open", async () => {
    const other = await startTestService();
    const otherUrl = await other.app.listen({ port: 0, host: "127.0.0.1" });
    const someone = await signIn(other);
    const response = await fetch(`${otherUrl}/notifications/stream`, { headers: someone.headers });
    expect(response.status).toBe(200);
    const started = Date.now();
    await other.stop();
    expect(Date.now() - started).toBeLessThan(10_000);
    await response.body?.cancel().catch(() => {});
  });
});

describe.skipIf(!process.env.DATABASE_URL)("across server instances (Postgres)", () => {
  it("pushes a notification created on one instance to a stream on another", async () => {
    const second = await startTestService({ database: service.database });
    try {
      const secondUrl = await second.app.listen({ port: 0, host: "127.0.0.1" });
      const controller = new AbortController();
      const response = await fetch(`${secondUrl}/notifications/stream`, {
        headers: user.headers,
        signal: controller.signal,
      });
      const reading = readUntil(response, (text) => text.includes("From the first instance"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await notify(service, user.userId, "From the first instance");
      const text = await reading;
      controller.abort();
      expect(text).toContain("From the first instance");
    } finally {
      await second.stop();
    }
  });
});
