import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { appRouter, exampleId, type Meta, parseWorkshopUrl } from "@modpack/contract";
import type { OpenAPI3 } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Answer, undeclaredAnswers } from "./support/answers.js";
import { startTestService, type TestService } from "./support/service.js";

const run = promisify(execFile);
const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(serverRoot, "../..");
const bin = (name: string) => path.join(serverRoot, "node_modules/.bin", name);

let service: TestService;
let document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, unknown> };
};
let rawDocument: OpenAPI3;
let workDir: string;

beforeAll(async () => {
  service = await startTestService();
  const response = await service.app.inject({ method: "GET", url: "/openapi.json" });
  document = response.json();
  rawDocument = response.json();
  workDir = path.join(serverRoot, "test-artifacts", `openapi-${process.pid}`);
  await mkdir(workDir, { recursive: true });
});
afterAll(async () => {
  await service.stop();
  await rm(workDir, { recursive: true, force: true });
});

const methods = ["get", "post", "put", "patch", "delete"];
const operations = () =>
  Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]) => ({ route, method, operation })),
  );

describe("the OpenAPI document", () => {
  it("lints with no errors under Redocly's recommended rules", async () => {
    const file = path.join(workDir, "openapi.json");
    await writeFile(file, JSON.stringify(document));
    const result = await run(bin("redocly"), ["lint", "--config", path.join(repoRoot, "redocly.yaml"), file], {
      cwd: workDir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    expect(`${result.stdout}${result.stderr}`).toMatch(/Woohoo|valid|validated/i);
  }, 120_000);

  it("passes Spectral's OWASP rules with fewer than 100 errors, none on a request parameter or body", async () => {
    const file = path.join(workDir, "openapi.json");
    await writeFile(file, JSON.stringify(document));
    // Spectral exits 1 when it reports errors; the JSON on stdout is the report either way.
    const { stdout } = await run(
      bin("spectral"),
      ["lint", "--ruleset", path.join(serverRoot, "spectral.yaml"), "--format", "json", "--quiet", file],
      { cwd: workDir, maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout?.trim().startsWith("[")) throw new Error(`spectral failed:\n${error.stderr ?? ""}`);
      return { stdout: error.stdout };
    });
    const results = JSON.parse(stdout) as Array<{ code: string; severity: number; path: string[] }>;
    const errors = results.filter((result) => result.severity === 0);
    const onInput = errors.filter((error) => error.path.includes("parameters") || error.path.includes("requestBody"));
    expect(onInput.map((error) => `${error.code} ${error.path.join("/")}`)).toEqual([]);
    // The kinds that remain, and why, are in docs/api.md: bounds no client must enforce on answers,
    // one security scheme for every role, the unlimited health probe and the development server URL.
    const kinds = new Set(errors.map((error) => error.code));
    expect([...kinds].sort()).toEqual(
      [
        "owasp:api4:2023-array-limit",
        "owasp:api4:2023-rate-limit",
        "owasp:api4:2023-string-limit",
        "owasp:api5:2023-admin-security-unique",
        "owasp:api8:2023-no-server-http",
      ].filter((kind) => kinds.has(kind)),
    );
    expect(errors.length).toBeLessThan(100);
  }, 120_000);

  it("declares what the HTTP layer answers on every operation, the shared 429 and 503 with Retry-After", () => {
    const shared = document.components as unknown as {
      responses: Record<string, { headers: Record<string, unknown> }>;
      headers: Record<string, unknown>;
    };
    expect(Object.keys(shared.responses.TooManyRequests?.headers ?? {})).toContain("Retry-After");
    expect(Object.keys(shared.responses.ServiceUnavailable?.headers ?? {})).toContain("Retry-After");
    for (const { route, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${route}`;
      const responses = operation.responses as Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
      expect(Object.keys(responses), where).toEqual(expect.arrayContaining(["400", "503"]));
      expect(responses["503"]?.$ref, where).toBe("#/components/responses/ServiceUnavailable");
      if (route.includes("{")) expect(Object.keys(responses), where).toContain("414");
      if (["post", "put", "patch", "delete"].includes(method)) {
        expect(Object.keys(responses), where).toEqual(expect.arrayContaining(["403", "413", "415"]));
      }
      if (operation["x-rate-limit"] === "none") continue;
      expect(responses["429"]?.$ref, where).toBe("#/components/responses/TooManyRequests");
      for (const [status, response] of Object.entries(responses)) {
        if (response.$ref) continue;
        expect(Object.keys(response.headers ?? {}), `${where} ${status}`).toEqual(
          expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]),
        );
      }
    }
    expect(Object.keys(document.paths["/docs"]?.get?.responses as object)).toContain("301");
    for (const route of ["/modpacks/{id}", "/modpacks/public", "/mods/{id}", "/modpacks/export/{exportId}/download"]) {
      const responses = (document.paths[route]?.get?.responses ?? {}) as Record<string, { headers?: object }>;
      const notModified = responses["304"];
      expect(Object.keys(notModified?.headers ?? {}), route).toContain("ETag");
    }
  });

  it("gives every integer a format, and states the bounds and rules input is held to", () => {
    const integers: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (typeof node !== "object" || node === null) return;
      const schema = node as { type?: unknown; format?: string };
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes("integer") && !["int32", "int64"].includes(schema.format ?? "")) integers.push(where);
      for (const [key, value] of Object.entries(node)) if (key !== "example") walk(value, `${where}/${key}`);
    };
    walk(document, "#");
    expect(integers).toEqual([]);

    const body = (route: string, method: string) =>
      (
        (document.paths[route]?.[method]?.requestBody ?? {}) as {
          content: { "application/json": { schema: { properties: Record<string, Record<string, unknown>> } } };
        }
      ).content["application/json"].schema.properties;
    const pattern = String(body("/modpacks", "post").platformWorkshopUrl?.pattern);
    expect(body("/modpacks/{id}/import", "post").platformUrl?.pattern).toBe(pattern);
    const workshopUrl = new RegExp(pattern);
    // The pattern states the parser's rule: what one accepts, the other does.
    for (const [url, accepted] of [
      ["https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298", true],
      [" HTTP://www.SteamCommunity.com/workshop/filedetails/?searchtext=&id=1 ", true],
      ["https://steamcommunity.com/sharedfiles/filedetails/?id=0123", false],
      ["https://steamcommunity.com.evil.example/sharedfiles/filedetails/?id=1", false],
      ["https://steamcommunity.com/sharedfiles/filedetails/?id=123456789012345678901", false],
      ["ftp://steamcommunity.com/sharedfiles/filedetails/?id=1", false],
    ] as const) {
      expect(workshopUrl.test(url), url).toBe(accepted);
      expect(parseWorkshopUrl(url) !== null, url).toBe(accepted);
    }
    expect(body("/modpacks", "post").name?.description).toMatch(/trimmed/);
    expect(body("/modpacks/{id}/members/{userId}", "patch").permission).toMatchObject({
      uniqueItems: true,
      maxItems: 5,
    });
    expect(String(rawDocument.info.description)).toMatch(/lone surrogate/);
  });

  it("documents every operation: id, tag, summary, who may call it, success and error responses", () => {
    const ids = new Set<string>();
    for (const { route, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${route}`;
      expect(operation.operationId, where).toEqual(expect.any(String));
      expect(ids.has(operation.operationId as string), `${where} repeats an operationId`).toBe(false);
      ids.add(operation.operationId as string);
      expect((operation.tags as string[]).length, where).toBeGreaterThan(0);
      expect(operation.summary, where).toEqual(expect.any(String));
      expect(String(operation.description), where).toMatch(/Public|signed-in|Requires|anyone|redirect|browser/i);
      type Response = { $ref?: string; content?: Record<string, { schema?: unknown }> };
      const responses = operation.responses as Record<string, Response>;
      const shared = (document.components as { responses?: Record<string, Response> }).responses ?? {};
      expect(
        Object.keys(responses).some((status) => /^[23]\d\d$/.test(status)),
        where,
      ).toBe(true);
      for (const [status, declared] of Object.entries(responses)) {
        const response = declared.$ref ? shared[declared.$ref.replace("#/components/responses/", "")] : declared;
        if (Number(status) >= 400)
          expect(response?.content?.["application/json"]?.schema, `${where} ${status}`).toBeDefined();
      }
    }
    expect(ids.size).toBeGreaterThan(40);
  });

  it("gives created and accepted operations their real statuses and the role permission", () => {
    expect(Object.keys(document.paths["/modpacks"]?.post?.responses as object)).toContain("201");
    expect(Object.keys(document.paths["/modpacks/{id}/import"]?.post?.responses as object)).toContain("202");
    expect(Object.keys(document.paths["/auth/tokens/{id}"]?.delete?.responses as object)).toContain("204");
    expect(document.paths["/mods/update-all"]?.post?.["x-permission"]).toBe("mod.update-all");
    expect(document.paths["/modpacks/{id}"]?.get?.security).toEqual([{ cookieAuth: [] }, { bearerAuth: [] }]);
  });

  it("gives every operation request and response examples, and every success response words", () => {
    for (const { route, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${route}`;
      for (const parameter of (operation.parameters ?? []) as Array<{ in: string; name: string; example?: unknown }>) {
        // An id's example is the document's one id; a revision's number has its own.
        if (parameter.in === "path") {
          expect(parameter.example, `${where} path parameter`).toEqual(parameter.name === "number" ? "3" : exampleId);
        }
      }
      const body = (operation.requestBody as { content: Record<string, { example?: unknown }> } | undefined)?.content;
      for (const [type, media] of Object.entries(body ?? {})) {
        expect(media.example, `${where} ${type} request example`).toBeDefined();
      }
      const responses = operation.responses as Record<
        string,
        { description: string; content?: Record<string, { example?: unknown }> }
      >;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) continue;
        expect(response.description, `${where} ${status}`).not.toMatch(/^(Successful response|Done; no content\.)$/);
        for (const [type, media] of Object.entries(response.content ?? {})) {
          expect(media.example, `${where} ${status} ${type} example`).toBeDefined();
        }
      }
    }
  });

  it("has request examples that the operations' own input schemas accept", () => {
    const procedures = Object.values(
      appRouter._def.procedures as unknown as Record<
        string,
        { _def: { meta?: Meta; inputs: Array<{ safeParse(value: unknown): { success: boolean; error?: unknown } }> } }
      >,
    );
    let checked = 0;
    for (const procedure of procedures) {
      const rest = procedure._def.meta?.openapi;
      if (!rest) continue;
      const operation = document.paths[rest.path]?.[rest.method.toLowerCase()] as Record<string, unknown>;
      const body = (operation.requestBody as { content: Record<string, { example?: object }> } | undefined)?.content;
      const pathIds = Object.fromEntries(
        [...rest.path.matchAll(/\{(\w+)\}/g)].map((match) => [match[1], match[1] === "number" ? "3" : exampleId]),
      );
      const parameters = (operation.parameters ?? []) as Array<{
        in: string;
        name: string;
        required?: boolean;
        example?: unknown;
        schema?: { example?: unknown };
      }>;
      const requiredQuery = Object.fromEntries(
        parameters
          .filter((parameter) => parameter.in === "query" && parameter.required)
          .map((parameter) => [parameter.name, parameter.example ?? parameter.schema?.example]),
      );
      if (!body && Object.keys(pathIds).length === 0) continue;
      const input = { ...pathIds, ...requiredQuery, ...(body?.["application/json"]?.example ?? {}) };
      for (const schema of procedure._def.inputs) {
        const parsed = schema.safeParse(input);
        expect(parsed.success, `${rest.method} ${rest.path}: ${JSON.stringify(parsed.error)}`).toBe(true);
      }
      checked += 1;
    }
    expect(checked).toBeGreaterThan(25);
  });

  it("lists the operation groups in the order of a user's journey", () => {
    expect((rawDocument.tags ?? []).map((tag) => tag.name)).toEqual([
      "Sign-in",
      "Modpacks",
      "Mods of a modpack",
      "Modpack check",
      "Members",
      "Import",
      "Server files",
      "Notifications",
      "Webhooks",
      "Catalogue",
      "Admin",
      "Health",
      "Documentation",
    ]);
    for (const { route, operation } of operations()) {
      expect(route.startsWith("/dev-idp"), route).toBe(false);
      expect((operation.tags as string[])[0], route).not.toBe("Development identity provider");
    }
  });

  it("documents one required mod reference for adding a mod, and the 200 when it is already there", () => {
    for (const route of ["/modpacks/{id}/mods", "/mods"]) {
      const operation = document.paths[route]?.post as {
        requestBody: { content: { "application/json": { schema: { properties: object; required: string[] } } } };
        responses: Record<string, { description: string }>;
      };
      const schema = operation.requestBody.content["application/json"].schema;
      expect(Object.keys(schema.properties), route).toEqual(["modAtribute"]);
      expect(schema.required, route).toEqual(["modAtribute"]);
      expect(Object.keys(operation.responses), route).toEqual(expect.arrayContaining(["200", "201"]));
      expect(operation.responses["200"]?.description, route).toMatch(/already/);
    }
  });
});

describe("the answers every HTTP suite records, held against the document", () => {
  const modpack = {
    id: exampleId,
    name: "Held pack",
    description: null,
    avatarUrl: null,
    platformUrl: null,
    owner: exampleId,
    isPublic: true,
    isVerified: false,
    isActive: true,
    members: [],
    metadata: {},
    revision: 0,
    lastGoodRevision: { "41x": null, "42x": null },
    createdAt: "2026-11-21T12:00:00.000Z",
    updatedAt: "2026-11-21T12:00:00.000Z",
  };
  const answer = (overrides: Partial<Answer>): Answer => ({
    method: "GET",
    url: `/modpacks/${exampleId}`,
    route: "/modpacks/{id}",
    status: 200,
    contentType: "application/json; charset=utf-8",
    body: JSON.stringify(modpack),
    ...overrides,
  });
  const errorBody = (message: string, code: string) => JSON.stringify({ error: { message, code } });

  it.each<[string, Partial<Answer>, RegExp | null]>([
    ["a declared status with a body its schema accepts", {}, null],
    ["a 304 with no body", { status: 304, body: "", contentType: undefined }, null],
    ["a HEAD read, held to its GET", { method: "HEAD", body: "" }, null],
    [
      "a status the operation does not declare",
      { status: 418, body: errorBody("No", "TEAPOT") },
      /not a declared status/,
    ],
    [
      "a body the schema refuses",
      { body: JSON.stringify({ ...modpack, isPublic: "yes" }) },
      /breaks the schema at \/isPublic/,
    ],
    ["a body that is not JSON", { body: '{"id":' }, /not JSON/],
    [
      "a media type the response does not declare",
      { contentType: "text/html", body: "<p>hi</p>" },
      /declares no text\/html/,
    ],
    [
      "the shared 429, with the general error body",
      { status: 429, body: errorBody("Too many requests, retry in 60 seconds", "TOO_MANY_REQUESTS") },
      null,
    ],
    [
      "a 503 whose body is not the error body",
      { status: 503, body: JSON.stringify({ down: true }) },
      /breaks the schema/,
    ],
    [
      "a path not in the document, answered 404 with the error body",
      { url: "/nowhere", route: undefined, status: 404, body: errorBody("Route GET /nowhere not found", "NOT_FOUND") },
      null,
    ],
    [
      "a path not in the document, answered otherwise",
      { url: "/nowhere", route: undefined, status: 413, body: errorBody("Too large", "PAYLOAD_TOO_LARGE") },
      /not a path of the document/,
    ],
    [
      "a 404 of a missing path whose body is not the error body",
      { url: "/nowhere", route: undefined, status: 404, body: JSON.stringify({ message: "gone" }) },
      /breaks the schema/,
    ],
    [
      "an asset of the reference",
      { url: "/docs/static/app.js", route: "/docs/static/app.js", contentType: "text/javascript", body: "x" },
      null,
    ],
    [
      "tRPC's own protocol",
      { method: "POST", url: "/trpc/modpacks.create", route: "/trpc/{path}", status: 207, body: "[]" },
      null,
    ],
    [
      "a streamed body, its status and media type only",
      {
        url: "/notifications/stream",
        route: "/notifications/stream",
        contentType: "text/event-stream",
        body: undefined,
      },
      null,
    ],
  ])("%s", (_name, overrides, problem) => {
    const problems = undeclaredAnswers(document as never, [answer(overrides)]);
    if (problem) expect(problems).toEqual([expect.stringMatching(problem)]);
    else expect(problems).toEqual([]);
  });
});
