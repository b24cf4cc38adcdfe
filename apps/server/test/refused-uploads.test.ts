/**
 * A request refused before its body is read (too large, a wrong content type, no or too weak
 * credentials) still gets its answer: a client that sends the whole body without
 * `Expect: 100-continue`, as browsers, Node's `fetch` and Python's `requests` do, finishes sending
 * and reads the status and the error body, never a reset. A body past the bound the service drains
 * ends with the connection closed, never a socket held open.
 */
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { errorBody, noPermission, unauthorized } from "@modpack/contract";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeError } from "../src/edge/errors.js";
import { drainUnreadBodies } from "../src/http/hardening.js";
import type { RawOutcome, RawRequest } from "./support/raw-client.js";
import { insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const MiB = 1024 * 1024;
/** Each case is sent this many times: a reset that happens now and then must show. */
const TIMES = 30;

let service: TestService;
let client: Worker;
let port: number;
let owner: SignedIn;
let stranger: SignedIn;
let readOnly: Record<string, string>;
let packId: string;

type Exchange = Omit<RawRequest, "port" | "headers"> & { headers?: Record<string, string>; port?: number };

/** Sends one request from the client's own thread and waits for how it ended. */
async function exchange(request: Exchange): Promise<RawOutcome> {
  client.postMessage({ port, headers: {}, ...request });
  const [outcome] = await once(client, "message");
  return outcome as RawOutcome;
}

/** Sends a request `TIMES` times, one after the other, and returns each outcome. */
async function repeat(request: Exchange): Promise<RawOutcome[]> {
  const outcomes: RawOutcome[] = [];
  for (let time = 0; time < TIMES; time++) outcomes.push(await exchange(request));
  return outcomes;
}

/** Every outcome: the whole body sent, no reset, and this status and error body read. */
function expectAnswered(outcomes: RawOutcome[], status: number, body: unknown): void {
  const failures = outcomes.filter(
    (outcome) => !outcome.sent || outcome.error !== undefined || outcome.answer?.status !== status,
  );
  expect(
    failures.map(({ answer, error, sent }) => ({ status: answer?.status, error, sent })),
    `${failures.length} of ${outcomes.length} ended without the answer`,
  ).toEqual([]);
  for (const { answer } of outcomes) {
    expect(answer?.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(answer?.body ?? "")).toEqual(body);
  }
}

const text = { "content-type": "text/plain; charset=utf-8" };
const json = { "content-type": "application/json" };
const tooLarge = errorBody(413, "Request body is larger than 1 MiB");
const unauthorizedBody = describeError(unauthorized()).body;
const noPermissionBody = describeError(noPermission()).body;

beforeAll(async () => {
  client = new Worker(new URL("./support/raw-client.ts", import.meta.url));
  service = await startTestService({ role: "api" });
  await service.app.listen({ port: 0, host: "127.0.0.1" });
  const address = service.app.server.address();
  port = typeof address === "object" && address ? address.port : 0;
  owner = await signIn(service, { name: "Owner" });
  stranger = await signIn(service, { name: "Stranger" });
  packId = await insertModpack(service, { ownerId: owner.userId, isPublic: true });
  const created = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    headers: owner.headers,
    payload: { name: "read-only", scopes: ["read"] },
  });
  expect(created.statusCode, created.body).toBe(201);
  readOnly = { authorization: `Bearer ${created.json().token}` };
});
afterAll(async () => {
  await client.terminate();
  await service.stop();
});

describe("an upload refused before its body is read", () => {
  const ini = (size: number) => Buffer.alloc(size, "PVP=true\n");

  it("413: a servertest.ini over 1 MiB on the patch route", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-file/patch?version=42x`,
      headers: text,
      body: ini(1.2 * MiB),
    });
    expectAnswered(outcomes, 413, tooLarge);
  });

  it("413: the same file sent chunked, its size unknown until it is read", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-file/patch?version=42x`,
      headers: text,
      body: ini(1.2 * MiB),
      chunked: true,
    });
    expectAnswered(outcomes, 413, tooLarge);
  });

  it("413: a start report's log over 16 MiB", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-starts?version=42x`,
      headers: { ...text, ...owner.headers },
      body: Buffer.alloc(17 * MiB, "LOG  : General      f:0 st:1> a line of the server's console\n"),
    });
    expectAnswered(outcomes, 413, errorBody(413, "The log is larger than 16 MiB"));
  });

  it("415: a body that is not text/plain", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-file/patch?version=42x`,
      headers: json,
      body: ini(1.2 * MiB),
    });
    expectAnswered(outcomes, 415, errorBody(415, "Unsupported content type: send application/json"));
  });

  it("401: a start report without credentials", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-starts?version=42x`,
      headers: text,
      body: Buffer.alloc(4 * MiB, "LOG  : a line\n"),
    });
    expectAnswered(outcomes, 401, unauthorizedBody);
  });

  it("403: a start report with a read-only token", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-starts?version=42x`,
      headers: { ...text, ...readOnly },
      body: Buffer.alloc(4 * MiB, "LOG  : a line\n"),
    });
    expectAnswered(outcomes, 403, noPermissionBody);
  });

  it("403: a cookie write from a foreign origin", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-starts?version=42x`,
      headers: { ...text, ...stranger.headers, origin: "http://elsewhere.test" },
      body: Buffer.alloc(4 * MiB, "LOG  : a line\n"),
    });
    expectAnswered(outcomes, 403, errorBody(403, "Cross-site request from http://elsewhere.test refused"));
  });

  it("413: JSON bodies over 1 MiB on sign-out, the export configuration and a modpack's update", async () => {
    const body = Buffer.from(JSON.stringify({ name: "x".repeat(1.2 * MiB) }));
    for (const [method, path] of [
      ["POST", "/auth/sign-out"],
      ["PUT", `/modpacks/${packId}/export-configuration`],
      ["PATCH", `/modpacks/${packId}`],
    ] as const) {
      const outcomes = await repeat({ method, path, headers: { ...json, ...owner.headers }, body });
      expectAnswered(outcomes, 413, tooLarge);
    }
  });
});

describe("the drain's bounds", () => {
  it("closes the connection of a body declared larger than the bound, answering 413 at once", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-file/patch?version=42x`,
      headers: text,
      body: Buffer.alloc(8 * MiB, "PVP=true\n"),
    });
    for (const outcome of outcomes) {
      // The socket closed; whether the client read the 413 before the reset is up to its timing.
      if (outcome.answer) expect(outcome.answer.status).toBe(413);
      if (outcome.answer) expect(outcome.answer.headers.connection).toBe("close");
    }
  });

  it("closes the connection once a chunked body runs past the bound", async () => {
    const outcomes = await repeat({
      method: "POST",
      path: `/modpacks/${packId}/server-file/patch?version=42x`,
      headers: text,
      body: Buffer.alloc(8 * MiB, "PVP=true\n"),
      chunked: true,
    });
    for (const outcome of outcomes) {
      if (outcome.answer) expect(outcome.answer.status).toBe(413);
      if (outcome.answer) expect(outcome.answer.headers.connection).toBe("close");
    }
  });

  it("answers and closes when the rest of a body does not come in time", async () => {
    const app = Fastify();
    drainUnreadBodies(app, { timeoutMs: 50 });
    app.post("/", async (_request, reply) => reply.code(401).send({ message: "Unauthorized" }));
    app.addContentTypeParser("text/plain", (_request, _payload, done) => done(null, undefined));
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    const bare = typeof address === "object" && address ? address.port : 0;
    try {
      const outcome = await exchange({
        method: "POST",
        path: "/",
        headers: text,
        body: Buffer.alloc(64 * 1024, "x"),
        stallAfter: 1024,
        port: bare,
      });
      expect(outcome.answer?.status).toBe(401);
      expect(outcome.answer?.headers.connection).toBe("close");
    } finally {
      await app.close();
    }
  });
});
