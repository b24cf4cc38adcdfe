import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { appRouter, exampleId, type Meta } from "@modpack/contract";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

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
      const responses = operation.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>;
      expect(
        Object.keys(responses).some((status) => /^[23]\d\d$/.test(status)),
        where,
      ).toBe(true);
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400)
          expect(response.content?.["application/json"]?.schema, `${where} ${status}`).toBeDefined();
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
      for (const parameter of (operation.parameters ?? []) as Array<{ in: string; example?: unknown }>) {
        if (parameter.in === "path") expect(parameter.example, `${where} path parameter`).toEqual(exampleId);
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
      const pathIds = Object.fromEntries([...rest.path.matchAll(/\{(\w+)\}/g)].map((match) => [match[1], exampleId]));
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

describe("a client generated by openapi-typescript + openapi-fetch", () => {
  it("compiles against the document and calls the running service", async () => {
    const types = astToString(await openapiTS(rawDocument));
    await writeFile(path.join(workDir, "api.d.ts"), types);
    await writeFile(
      path.join(workDir, "usage.ts"),
      `import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const client = createClient<paths>({ baseUrl: process.env.BASE_URL, headers: { authorization: \`Bearer \${process.env.TOKEN}\` } });

const health = await client.GET("/health");
const created = await client.POST("/modpacks", { body: { name: "Generated client pack", isPublic: true } });
if (!created.data) throw new Error(JSON.stringify(created.error));
const read = await client.GET("/modpacks/{id}", { params: { path: { id: created.data.id } } });
const page = await client.GET("/modpacks/public", { params: { query: { limit: 5, search: "Generated" } } });
const refused = await client.POST("/modpacks", { body: { name: "x" } });
console.log(JSON.stringify({
  health: health.data?.message,
  name: read.data?.name,
  total: page.data?.pagination.total,
  refused: refused.response.status,
  issue: refused.error && "error" in refused.error ? refused.error.error.issues?.[0]?.path : undefined,
}));
`,
    );
    await writeFile(
      path.join(workDir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          outDir: "out",
        },
        files: ["usage.ts", "api.d.ts"],
      }),
    );
    await writeFile(path.join(workDir, "package.json"), JSON.stringify({ type: "module" }));
    await run(bin("tsc"), ["-p", workDir]).catch((error: { stdout?: string }) => {
      throw new Error(`the generated client does not compile:\n${error.stdout ?? ""}`);
    });

    const user = await signIn(service);
    const token = await service.app.inject({
      method: "POST",
      url: "/auth/tokens",
      headers: user.headers,
      payload: { name: "generated client" },
    });
    const baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
    const { stdout } = await run(process.execPath, [path.join(workDir, "out/usage.js")], {
      env: { ...process.env, BASE_URL: baseUrl, TOKEN: token.json().token },
    });
    expect(JSON.parse(stdout)).toEqual({
      health: "OK",
      name: "Generated client pack",
      total: 1,
      refused: 400,
      issue: "name",
    });
  }, 120_000);
});
