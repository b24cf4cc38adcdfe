/**
 * A JSON value is never read as another type. Every operation of the service's own OpenAPI
 * document is sent, one field at a time, a string where its body has a boolean or a number and a
 * number or a boolean where it has a string; query parameters get strings that are not exactly a
 * whole decimal number or `true`/`false`. Each such request answers 400 naming the field, and
 * changes no row. The same bodies sent to /trpc after the REST calls are refused the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { startTestService, type TestService } from "./support/service.js";
import { snapshot } from "./support/snapshot.js";
import { signIn } from "./support/users.js";

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  $ref?: string;
}

interface Parameter {
  name: string;
  in: string;
  schema?: JsonSchema;
}

interface RawOperation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

let steam: FakeSteam;
let service: TestService;
let document: OpenApiDocument;
let headers: Record<string, string>;
const ids: Record<string, string> = {};

function resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema?.$ref) return schema;
  return document.components?.schemas?.[schema.$ref.split("/").pop() ?? ""];
}

/** The scalar JSON types a schema accepts. */
function scalarTypes(schema: JsonSchema | undefined): Set<string> {
  const resolved = resolve(schema);
  const types = new Set<string>();
  if (!resolved) return types;
  for (const type of [resolved.type ?? []].flat()) types.add(type === "integer" ? "number" : type);
  for (const option of resolved.anyOf ?? []) for (const type of scalarTypes(option)) types.add(type);
  return types;
}

/** Values of the wrong JSON type for a field accepting these types. */
function wrongValues(types: Set<string>): unknown[] {
  const values: unknown[] = [];
  if (types.has("boolean")) values.push("false", "true", "0", 0);
  if (types.has("number")) values.push("1", "30", "", true);
  if (types.has("string")) values.push(12345, false);
  return values.filter((value) => !types.has(typeof value));
}

/** Strings that a query parameter of this type must refuse (an empty value is the same as none). */
function wrongQueryValues(type: string | undefined): string[] {
  if (type === "integer" || type === "number") return ["1e1", " 2", "0x10", "2.0", "+3", "true", "1,2"];
  if (type === "boolean") return ["1", "0", "yes", "False", "TRUE"];
  return [];
}

function pathFor(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (template.startsWith("/admin/users/")) return ids.userId ?? "";
    if (template.startsWith("/auth/tokens/")) return ids.tokenId ?? "";
    if (template.startsWith("/notifications/")) return ids.notificationId ?? "";
    if (template.startsWith("/mods/")) return ids.modId ?? "";
    return ids[name] ?? ids.id ?? "";
  });
}

interface Case {
  method: string;
  url: string;
  field: string;
  body?: Record<string, unknown>;
  /** The operation reads a `text/plain` body. */
  text?: true;
}

function cases(): Case[] {
  const list: Case[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const url = pathFor(template);
      // A route that reads a text body (a server file, a log) is sent one, so its query is what it refuses.
      const text = operation.requestBody?.content?.["text/plain"] !== undefined;
      const body = resolve(operation.requestBody?.content?.["application/json"]?.schema);
      for (const [field, schema] of Object.entries(body?.properties ?? {})) {
        for (const value of wrongValues(scalarTypes(schema))) {
          list.push({ method: method.toUpperCase(), url, field, body: { [field]: value } });
        }
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== "query") continue;
        for (const value of wrongQueryValues(resolve(parameter.schema)?.type as string | undefined)) {
          list.push({
            method: method.toUpperCase(),
            url: `${url}?${new URLSearchParams({ [parameter.name]: value })}`,
            field: parameter.name,
            ...(text ? { text: true } : {}),
          });
        }
      }
    }
  }
  return list;
}

beforeAll(async () => {
  steam = await startFakeSteam();
  steam.items.set("101", fakeItem("101"));
  service = await startTestService({
    role: "api",
    env: { WORKSHOP_API_URL: steam.url, WORKSHOP_MAX_RETRIES: "0" },
  });
  const admin = await signIn(service, { name: "Strict Admin", role: "admin" });
  const member = await signIn(service, { name: "Strict Member" });
  headers = { ...admin.headers, "content-type": "application/json" };
  const call = async (method: "POST" | "GET", url: string, payload?: unknown) => {
    const response = await service.app.inject({ method, url, headers, payload: JSON.stringify(payload ?? {}) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.json() as Record<string, unknown>;
  };
  ids.id = String((await call("POST", "/modpacks", { name: "Strict target", isPublic: false })).id);
  ids.modId = String((await call("POST", `/modpacks/${ids.id}/mods`, { modAttribute: "101" })).modId);
  ids.userId = member.userId;
  // Adding the mod recorded the pack's first revision.
  ids.number = "1";
  await call("POST", `/modpacks/${ids.id}/members`, { userId: member.userId, permission: ["read"] });
  ids.exportId = String((await call("POST", `/modpacks/${ids.id}/server-file`, { version: "41x" })).exportId);
  ids.tokenId = String((await call("POST", "/auth/tokens", { name: "strict" })).id);
  const notification = await service.runtime.database.db
    .insertInto("notifications")
    .values({ userId: admin.userId, title: "Seed", content: "seed", type: "info", metadata: "{}" })
    .returning("id")
    .executeTakeFirstOrThrow();
  ids.notificationId = notification.id;
  document = (await service.app.inject({ method: "GET", url: "/openapi.json" })).json() as OpenApiDocument;
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await steam?.close();
});

describe("a JSON value keeps its type", () => {
  it("refuses, with 400 naming the field, every wrong-typed field of every operation, and writes nothing", async () => {
    const all = cases();
    expect(all.length).toBeGreaterThan(40);
    const fields = new Set(all.map((item) => item.field));
    for (const expected of ["isPublic", "isVerified", "expiresInDays", "name", "page", "limit", "unreadOnly"]) {
      expect(fields).toContain(expected);
    }
    const accepted: string[] = [];
    for (const item of all) {
      const before = await snapshot(service.runtime);
      const response = await service.app.inject({
        method: item.method as "GET",
        url: item.url,
        headers: item.text ? { ...headers, "content-type": "text/plain" } : headers,
        ...(item.body ? { payload: JSON.stringify(item.body) } : item.text ? { payload: "Mods=\n" } : {}),
      });
      const label = `${item.method} ${item.url} ${item.body ? JSON.stringify(item.body) : ""}`;
      const issues = (response.json() as { error?: { issues?: Array<{ path: string }> } }).error?.issues ?? [];
      if (response.statusCode !== 400 || !issues.some((issue) => issue.path.split(".")[0] === item.field)) {
        accepted.push(`${label} → ${response.statusCode} ${response.body.slice(0, 200)}`);
      }
      expect(await snapshot(service.runtime), label).toEqual(before);
    }
    expect(accepted).toEqual([]);
  }, 180_000);

  it.each([
    ["modpacks.create", { name: "Via tRPC", isPublic: "false" }, "isPublic"],
    ["modpacks.update", { id: "", isPublic: "false" }, "isPublic"],
    ["admin.verifyModpack", { id: "", isVerified: "false" }, "isVerified"],
    ["auth.createToken", { name: "t", expiresInDays: "30" }, "expiresInDays"],
  ])("refuses a string for a boolean or number on /trpc %s after REST calls ran", async (path, input, field) => {
    const body = { ...input, ...("id" in input ? { id: ids.id } : {}) };
    const before = await snapshot(service.runtime);
    const response = await service.app.inject({
      method: "POST",
      url: `/trpc/${path}`,
      headers,
      payload: JSON.stringify(body),
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.body).toContain(field);
    expect(await snapshot(service.runtime)).toEqual(before);
  });

  it("reads exact query strings: whole decimal numbers and true/false", async () => {
    const page = await service.app.inject({
      method: "GET",
      url: "/modpacks/my?page=1&limit=5&includeArchived=false",
      headers,
    });
    expect(page.statusCode).toBe(200);
    expect(page.json().pagination).toMatchObject({ page: 1, limit: 5 });
    const zero = await service.app.inject({ method: "GET", url: "/modpacks/my?page=0", headers });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error.issues[0]).toMatchObject({ path: "page", message: "Must be 1 or more" });
  });
});
