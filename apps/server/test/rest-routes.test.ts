/**
 * One Fastify route per REST operation: a body that is not the JSON object an operation takes is
 * refused and changes nothing, a path's dot segments never lead to another operation, and a read's
 * input keeps its JSON types.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;
let packId: string;
let port: number;

/** A GET whose path goes on the wire exactly as written (an HTTP client would resolve its dot segments). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, headers: owner.headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service, { name: "Route owner" });
  const created = await service.app.inject({
    method: "POST",
    url: "/modpacks",
    headers: owner.headers,
    payload: { name: "Route pack", description: "Before", isPublic: true },
  });
  expect(created.statusCode).toBe(201);
  packId = created.json().id;
  await service.app.listen({ port: 0, host: "127.0.0.1" });
  port = (service.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await service?.stop();
});

async function modpackCount(): Promise<number> {
  const row = await service.runtime.database.db
    .selectFrom("modpacks")
    .select((eb) => eb.fn.countAll<string>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe("a body that is not a JSON object", () => {
  const writes = [
    { name: "PATCH /modpacks/{id}", method: "PATCH" as const, url: () => `/modpacks/${packId}` },
    { name: "POST /modpacks/{id}/duplicate", method: "POST" as const, url: () => `/modpacks/${packId}/duplicate` },
    { name: "POST /modpacks", method: "POST" as const, url: () => "/modpacks" },
  ];
  const bodies = ["null", "[]", "true", "false", "0", '"text"', '[{"name":"Renamed"}]'];

  it.each(writes.flatMap((write) => bodies.map((body) => ({ ...write, body }))))(
    "$name with $body answers 400 and changes nothing",
    async ({ method, url, body }) => {
      const before = await modpackCount();
      const response = await service.app.inject({
        method,
        url: url(),
        headers: { ...owner.headers, "content-type": "application/json" },
        payload: body,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        error: { message: "The request body must be a JSON object", code: "BAD_REQUEST" },
      });
      expect(await modpackCount()).toBe(before);
      const pack = await service.app.inject({ method: "GET", url: `/modpacks/${packId}`, headers: owner.headers });
      expect(pack.json()).toMatchObject({ name: "Route pack", description: "Before" });
    },
  );

  it("still takes a write with no body at all", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: `/modpacks/${packId}/restore`,
      headers: owner.headers,
    });
    expect(response.statusCode).toBe(200);
  });
});

describe("dot segments", () => {
  it.each([
    "/modpacks/../mods",
    "/modpacks/%2e%2e/mods",
    "/modpacks/%2E%2E/mods/tags",
    "/modpacks/public/..",
    "/modpacks/public/%2e%2e",
    "/modpacks/./my",
    "/modpacks/%2e/my",
    "/mods/%2e%2e/modpacks/public",
    "/admin/../modpacks/public",
    "/modpacks/x/..%2f..%2fmods",
  ])("GET %s reaches no other operation", async (path) => {
    const response = await rawGet(path);
    expect([400, 404]).toContain(response.status);
    const body = JSON.parse(response.body);
    expect(body.error.code).toMatch(/^(BAD_REQUEST|NOT_FOUND)$/);
    expect(body.data).toBeUndefined();
  });
});

describe("query values keep their meaning", () => {
  it.each([
    ["/modpacks/my?includeArchived=1", 400],
    ["/modpacks/my?includeArchived=yes", 400],
    ["/modpacks/my?includeArchived=true", 200],
    ["/modpacks/public?limit=1e1", 400],
    ["/modpacks/public?limit=10&limit=20", 400],
    ["/modpacks/public?limit=10", 200],
    ["/modpacks/public?search=", 200],
  ])("GET %s answers %i", async (url, status) => {
    const response = await service.app.inject({ method: "GET", url, headers: owner.headers });
    expect(response.statusCode).toBe(status);
  });
});

describe("JSON values keep their keys", () => {
  it.each([
    { snake_case: 1, nested: { max_players: 32, "kebab-key": true } },
    { CamelCase: "x", list: [{ mod_id: "Brita" }] },
  ])("a modpack's metadata %o reads back as it was written", async (metadata) => {
    const patched = await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${packId}`,
      headers: owner.headers,
      payload: { metadata },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().metadata).toEqual(metadata);
    const read = await service.app.inject({ method: "GET", url: `/modpacks/${packId}`, headers: owner.headers });
    expect(read.json().metadata).toEqual(metadata);
  });
});
