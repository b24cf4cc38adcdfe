import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CapturedLog, captureLog } from "./support/log-capture.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let log: CapturedLog;
let owner: SignedIn;
let modpackId: string;

beforeAll(async () => {
  log = captureLog();
  service = await startTestService({ role: "api", logger: log.logger });
  owner = await signIn(service, { name: "Owner" });
  const created = await service.app.inject({
    method: "POST",
    url: "/modpacks",
    headers: owner.headers,
    payload: { name: "Nested" },
  });
  modpackId = created.json().id;
});
afterAll(() => service.stop());

/** `{ "key": [[[ ... value ... ]]] }` with `value` at `depth` levels below the metadata object. */
function nestedMetadata(depth: number, value: string): string {
  return `{"metadata":{"key":${"[".repeat(depth - 1)}${value}${"]".repeat(depth - 1)}}}`;
}
const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("deeply nested JSON and NUL anywhere in a body", () => {
  const cases: Array<{ name: string; method: "POST" | "PATCH"; url: () => string; body: () => string }> = [
    {
      name: "100,000-deep array as a REST body",
      method: "POST",
      url: () => "/modpacks",
      body: () => deepArray(100_000),
    },
    {
      name: "100,000-deep array as a tRPC body",
      method: "POST",
      url: () => "/trpc/modpacks.create",
      body: () => deepArray(100_000),
    },
    {
      name: "100,000-deep array inside metadata",
      method: "PATCH",
      url: () => `/modpacks/${modpackId}`,
      body: () => nestedMetadata(100_000, "1"),
    },
    {
      name: "NUL in metadata at depth 1",
      method: "PATCH",
      url: () => `/modpacks/${modpackId}`,
      body: () => nestedMetadata(1, '"a\\u0000b"'),
    },
    {
      name: "NUL in metadata at depth 40",
      method: "PATCH",
      url: () => `/modpacks/${modpackId}`,
      body: () => nestedMetadata(40, '"\\u0000"'),
    },
    {
      name: "NUL in metadata at depth 60",
      method: "PATCH",
      url: () => `/modpacks/${modpackId}`,
      body: () => nestedMetadata(60, '"\\u0000"'),
    },
    {
      name: "NUL in metadata at depth 60 over tRPC",
      method: "POST",
      url: () => "/trpc/modpacks.update",
      body: () => `{"id":"${modpackId}",${nestedMetadata(60, '"\\u0000"').slice(1)}`,
    },
    {
      name: "NUL in metadata at depth 150",
      method: "PATCH",
      url: () => `/modpacks/${modpackId}`,
      body: () => nestedMetadata(150, '"\\u0000"'),
    },
    {
      name: "NUL in a metadata key at depth 150",
      method: "PATCH",
      url: () => `/modpacks/${modpackId}`,
      body: () => nestedMetadata(150, '{"k\\u0000":1}'),
    },
    {
      name: "NUL in metadata at depth 150 over tRPC",
      method: "POST",
      url: () => "/trpc/modpacks.update",
      body: () => `{"id":"${modpackId}",${nestedMetadata(150, '"\\u0000"').slice(1)}`,
    },
  ];

  it.each(cases)("$name answers 400 and logs no stack trace", async ({ method, url, body }) => {
    const before = log.lines().length;
    const response = await service.app.inject({
      method,
      url: url(),
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: body(),
    });
    expect(response.statusCode).toBe(400);
    const answer = response.json();
    const message: unknown = answer.error?.message ?? answer.error?.json?.message;
    expect(typeof message).toBe("string");
    const written = log.lines().slice(before);
    expect(written.filter((line) => Number(line.level) >= 50)).toEqual([]);
    expect(JSON.stringify(written)).not.toContain('"stack"');
  });

  it("still stores metadata nested within the bound", async () => {
    const response = await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${modpackId}`,
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: nestedMetadata(30, '"deep"'),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().metadata).toEqual(JSON.parse(nestedMetadata(30, '"deep"')).metadata);
  });
});
