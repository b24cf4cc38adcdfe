/**
 * Hostile input: every operation of the service's own OpenAPI document is sent generated path
 * parameters, query strings and bodies — valid-ish values mixed with wrong types, 100 KB strings,
 * NUL, lone surrogates, RTL and emoji, prototype-pollution keys, SQL and HTML, 10,000-element
 * arrays and numbers such as 1e308 — by an anonymous caller, a stranger, and the owner of a seeded
 * modpack (whose real ids are often used, so requests reach the services and the database).
 *
 * Properties: never a 5xx; every error is JSON in one of the service's three error shapes;
 * a rejected request (>= 400) changes no table (row counts of every table and checksums of the
 * modpack rows, memberships, links, mods, users, export configurations and notifications, taken
 * around each request); `Object.prototype` is never polluted; and, when the service stops, every
 * answer is one the document declares, with a body its schema accepts (test/support/answers.ts).
 *
 * HOSTILE_RUNS sets the runs per operation (default 60); HOSTILE_DEBUG=1 prints the statuses per
 * operation, to see how deep the generated requests reach.
 *
 * The service runs in the `api` role (HTTP only, no job workers) so that nothing changes the
 * database behind a request's back: an import or export a request queues stays queued.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import type { Runtime } from "../src/runtime.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { startTestService, type TestService } from "./support/service.js";
import { snapshot } from "./support/snapshot.js";
import { signIn } from "./support/users.js";

/** Runs per operation; about 50 operations, so the whole file stays well under a minute on 2 cores. */
const RUNS_PER_OPERATION = Number(process.env.HOSTILE_RUNS ?? 60);

// ---------------------------------------------------------------------------------------------
// The OpenAPI document, read as plain data.

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
}

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  schema?: JsonSchema;
}

interface Operation {
  method: string;
  path: string;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  body: { kind: "json"; schema: JsonSchema | undefined } | { kind: "form"; schema: JsonSchema | undefined } | null;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const methods = new Set(["get", "post", "put", "patch", "delete"]);

function readOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!methods.has(method)) continue;
      const operation = raw as {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
      };
      const parameters = operation.parameters ?? [];
      const content = operation.requestBody?.content;
      const body = content?.["application/json"]
        ? { kind: "json" as const, schema: content["application/json"].schema }
        : content?.["application/x-www-form-urlencoded"]
          ? { kind: "form" as const, schema: content["application/x-www-form-urlencoded"].schema }
          : null;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((parameter) => parameter.in === "path"),
        queryParameters: parameters.filter((parameter) => parameter.in === "query"),
        body,
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Generated values.

/** A JSON text fragment written as is (numbers JSON.stringify can't produce, such as 1e400 or -0). */
class RawJson {
  constructor(readonly text: string) {}
}

/** An object with explicit, possibly repeated or `__proto__`, keys. */
class Entries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Entries) {
    return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`).join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") return toJsonText(new Entries(Object.entries(value)));
  if (value === undefined) return "null";
  return JSON.stringify(value);
}

/** Percent-encodes anything, lone surrogates included (as the invalid UTF-8 bytes they would be). */
function encodeLoose(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = "";
    for (const char of text) {
      const code = char.charCodeAt(0);
      if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
        out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
      } else {
        out += encodeURIComponent(char);
      }
    }
    return out.toUpperCase();
  }
}

const HUGE = "A".repeat(100 * 1024);
const HUGE_EMOJI = "😀".repeat(25 * 1024);
const TEN_THOUSAND = Array.from({ length: 10_000 }, (_, index) => index);
const TEN_THOUSAND_STRINGS = Array.from({ length: 10_000 }, (_, index) => `x${index}`);

const nastyStrings = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud83dy",
  "😀",
  "👩‍👩‍👧‍👦",
  "\u202egnp.exe",
  "مرحبا بالعالم",
  "שלום",
  "Z̸̡̛a̶l̷g̴o",
  "' OR 1=1 --",
  "'; drop table users; --",
  "; drop table users;",
  '" OR ""="',
  "1; select pg_sleep(10)",
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "javascript:alert(1)",
  "__proto__",
  "constructor",
  "prototype",
  "1e308",
  "-0",
  "NaN",
  "Infinity",
  "-1",
  "0",
  "9007199254740993",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "../../../../etc/passwd",
  "%00",
  "%",
  "%%32%65",
  "\\",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell-style payload, on purpose
  "${jndi:ldap://x}",
  "{{7*7}}",
  "\r\nX-Injected: 1",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=' OR 1=1 --",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=101",
  "https://steamcommunity.com/workshop/filedetails/?id=99999999999999999999999",
  "Mod101",
  "101",
  HUGE,
  HUGE_EMOJI,
];

const hostileString = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...nastyStrings) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 3, maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 51, maxLength: 1100 }) },
);

const hostileNumber = fc.oneof(
  fc.constantFrom<unknown>(
    1e308,
    -1e308,
    0,
    -1,
    1.5,
    5e-324,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 31,
    new RawJson("-0"),
    new RawJson("1e400"),
    new RawJson("-1e400"),
    new RawJson("1E-400"),
    new RawJson("123456789012345678901234567890"),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A JSON object whose keys try to reach Object.prototype. */
const pollutionObject = fc
  .array(
    fc.constantFrom<[string, unknown]>(
      ["__proto__", { polluted: "yes", isAdmin: true }],
      ["constructor", { prototype: { polluted: "yes" } }],
      ["prototype", { polluted: "yes" }],
      ["__proto__", new Entries([["__proto__", { polluted: "yes" }]])],
      ["toString", "boom"],
      ["hasOwnProperty", 1],
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((entries) => new Entries(entries));

const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 5, arbitrary: hostileString },
    { weight: 3, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(TEN_THOUSAND, TEN_THOUSAND_STRINGS) },
    { weight: 1, arbitrary: pollutionObject },
    { weight: 1, arbitrary: fc.array(tie("value"), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), tie("value"), { maxKeys: 4 }) },
  ),
})).value;

// ---------------------------------------------------------------------------------------------
// The seeded world the requests aim at.

interface World {
  modpackId: string;
  modId: string;
  ownerId: string;
  strangerId: string;
  memberId: string;
  exportId: string;
  notificationId: string;
  spareTokenId: string;
}

function resolve(schema: JsonSchema | undefined, document: OpenApiDocument): JsonSchema | undefined {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 10; depth++) {
    const name = current.$ref.split("/").pop() ?? "";
    current = document.components?.schemas?.[name];
  }
  return current;
}

/** A value the schema accepts (more or less: ids come from the seeded world, strings may be long). */
function validFor(schema: JsonSchema | undefined, document: OpenApiDocument, ids: string[]): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, document);
  if (!resolved) return hostileValue;
  const variants = resolved.anyOf ?? resolved.oneOf;
  if (variants && variants.length > 0) return fc.oneof(...variants.map((variant) => validFor(variant, document, ids)));
  if (resolved.allOf?.[0]) return validFor(resolved.allOf[0], document, ids);
  if (resolved.enum && resolved.enum.length > 0) return fc.constantFrom(...resolved.enum);
  const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({
        min: Math.max(resolved.minimum ?? -1000, -1_000_000),
        max: Math.min(resolved.maximum ?? 1000, 1_000_000),
      });
    case "number":
      return fc.double({ min: resolved.minimum ?? -1000, max: resolved.maximum ?? 1000, noNaN: true });
    case "array": {
      const max = Math.min(resolved.maxItems ?? 5, 5);
      return fc.array(validFor(resolved.items, document, ids), {
        minLength: Math.min(resolved.minItems ?? 0, max),
        maxLength: max,
      });
    }
    case "object": {
      const properties = Object.entries(resolved.properties ?? {});
      const values = resolved.additionalProperties;
      if (properties.length === 0 && typeof values === "object") {
        // A record (e.g. `modConfig`, keyed by mod id).
        const keys = validFor(resolved.propertyNames ?? { type: "string" }, document, ids).map(String);
        return fc.dictionary(keys, validFor(values, document, ids), { maxKeys: 3 });
      }
      if (properties.length === 0) return fc.constant({});
      const required = new Set(resolved.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of properties) record[name] = validFor(property, document, ids);
      return fc.record(record, { requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)) });
    }
    default: {
      if (resolved.format === "uuid") return fc.oneof(fc.constantFrom(...ids), fc.uuid());
      if (resolved.format === "uri" || resolved.format === "url") {
        return fc.oneof(fc.webUrl(), fc.constant("https://steamcommunity.com/sharedfiles/filedetails/?id=101"));
      }
      if (resolved.format === "email") return fc.emailAddress();
      const min = resolved.minLength ?? 0;
      const max = Math.min(resolved.maxLength ?? 64, 64);
      return fc.oneof(
        fc.string({ minLength: min, maxLength: Math.max(min, max) }),
        fc.constantFrom("Mod101", "101", "Hostile pack", "https://steamcommunity.com/sharedfiles/filedetails/?id=101"),
      );
    }
  }
}

/** A body: mostly the schema's object with some properties made hostile; sometimes anything at all. */
function bodyFor(operation: Operation, document: OpenApiDocument, ids: string[]): fc.Arbitrary<string | undefined> {
  const schema = resolve(operation.body?.schema, document);
  const properties = Object.entries(schema?.properties ?? {});
  const objectBody = fc
    .tuple(
      ...properties.map(([name, property]) =>
        fc.oneof(
          {
            weight: 3,
            arbitrary: validFor(property, document, ids).map((value) => [name, value] as [string, unknown]),
          },
          { weight: 2, arbitrary: hostileValue.map((value) => [name, value] as [string, unknown]) },
          { weight: 1, arbitrary: fc.constant<[string, unknown] | null>(null) },
        ),
      ),
    )
    .chain((entries) =>
      fc
        .option(fc.tuple(fc.constantFrom("__proto__", "constructor", "extra", "isAdmin", "ownerId"), hostileValue), {
          nil: undefined,
        })
        .map((extra) => {
          const kept = entries.filter((entry): entry is [string, unknown] => entry !== null);
          return new Entries(extra ? [...kept, extra] : kept);
        }),
    );
  if (operation.body?.kind === "form") {
    return fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...properties.map(([name]) => name), "__proto__", "name"), hostileString),
          hostileString,
        ),
        {
          maxLength: 8,
        },
      )
      .map((pairs) => pairs.map(([key, value]) => `${encodeLoose(key)}=${encodeLoose(value)}`).join("&"));
  }
  return fc.oneof(
    { weight: 6, arbitrary: objectBody.map(toJsonText) },
    { weight: 2, arbitrary: hostileValue.map(toJsonText) },
    { weight: 1, arbitrary: pollutionObject.map(toJsonText) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "{",
        '{"name":',
        "[1,2,",
        "nul",
        "\u0000",
        "{'name': 'single quotes'}",
        '{"name":"a"}{"name":"b"}',
        `{"name":"${"x".repeat(1024 * 1024 + 10)}"}`,
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

type CallerKind = "anonymous" | "stranger" | "owner";

interface GeneratedRequest {
  caller: CallerKind;
  credential: "bearer" | "cookie" | "junk";
  pathValues: string[];
  query: Array<[string, string]>;
  body: string | undefined;
  contentType: string | undefined;
  foreignOrigin: boolean;
}

/** The seeded ids a path parameter most likely names, so requests get past "not found". */
function preferredIds(path: string, name: string): string[] {
  if (name === "modId" || path.startsWith("/mods/")) return [world.modId];
  if (name === "userId") return [world.memberId, world.strangerId, world.ownerId];
  if (name === "exportId") return [world.exportId];
  if (path.startsWith("/modpacks/") || path.startsWith("/admin/modpacks/")) return [world.modpackId];
  if (path.startsWith("/notifications/")) return [world.notificationId];
  if (path.startsWith("/auth/tokens/")) return [world.spareTokenId];
  if (path.startsWith("/admin/users/")) return [world.strangerId, world.ownerId];
  return [world.modpackId];
}

function requestFor(operation: Operation, document: OpenApiDocument, ids: string[]): fc.Arbitrary<GeneratedRequest> {
  const pathValue = (parameter: Parameter) =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...preferredIds(operation.path, parameter.name)) },
      { weight: 2, arbitrary: fc.constantFrom(...ids) },
      { weight: 1, arbitrary: fc.uuid() },
      {
        weight: 1,
        arbitrary: fc.constantFrom("00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
      },
      { weight: 3, arbitrary: hostileString },
    );
  const queryPairs = fc.array(
    fc.oneof(
      ...(operation.queryParameters.length > 0
        ? [
            fc.constantFrom(...operation.queryParameters).chain((parameter) =>
              fc
                .oneof(
                  validFor(parameter.schema, document, ids).map((value) =>
                    Array.isArray(value) ? value.map(String).join(",") : String(value),
                  ),
                  hostileString,
                )
                .map((value) => [parameter.name, value] as [string, string]),
            ),
          ]
        : []),
      fc.tuple(
        fc.constantFrom(
          "__proto__",
          "__proto__[polluted]",
          "constructor[prototype][polluted]",
          "a[b][c]",
          "page[]",
          "limit",
        ),
        hostileString,
      ),
    ),
    { maxLength: 6 },
  );
  return fc.record({
    caller: fc.constantFrom<CallerKind>("anonymous", "stranger", "owner", "owner", "owner"),
    credential: fc.constantFrom<GeneratedRequest["credential"]>(
      "bearer",
      "bearer",
      "bearer",
      "cookie",
      "cookie",
      "junk",
    ),
    pathValues: fc.tuple(...operation.pathParameters.map(pathValue)),
    query: queryPairs,
    body: operation.method === "GET" ? fc.constant(undefined) : bodyFor(operation, document, ids),
    contentType: fc.constantFrom<string | undefined>(
      "application/json",
      "application/json",
      "application/json",
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      operation.body?.kind === "form" ? "application/x-www-form-urlencoded" : "text/plain",
      undefined,
    ),
    foreignOrigin: fc.constantFrom(false, false, false, true),
  });
}

// ---------------------------------------------------------------------------------------------
// The database's state, taken around each request.

// ---------------------------------------------------------------------------------------------

let steam: FakeSteam;
let testService: TestService;
let runtime: Runtime;
let document: OpenApiDocument;
let world: World;
const credentials: Record<Exclude<CallerKind, "anonymous">, { token: string; session: string }> = {
  stranger: { token: "", session: "" },
  owner: { token: "", session: "" },
};
let requestsTried = 0;
const statusCounts = new Map<number, number>();
const perOperation = new Map<string, number>();
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

function service(): TestService {
  return testService;
}

async function inject(options: {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: unknown;
}): Promise<{ statusCode: number; body: string; json: () => Record<string, unknown> }> {
  const response = await runtime.app!.inject({
    method: options.method as "GET",
    url: options.url,
    headers: options.headers ?? {},
    ...(options.payload === undefined ? {} : { payload: options.payload as string }),
  });
  return { statusCode: response.statusCode, body: response.body, json: () => response.json() };
}

async function createApiToken(session: string, name: string): Promise<{ id: string; token: string }> {
  const response = await inject({
    method: "POST",
    url: "/auth/tokens",
    headers: { cookie: `${SESSION_COOKIE}=${session}`, "content-type": "application/json" },
    payload: JSON.stringify({ name }),
  });
  expect(response.statusCode).toBe(201);
  const body = response.json() as { id: string; token: string };
  return { id: body.id, token: body.token };
}

/** Puts back what a successful request may have changed, so later requests still reach deep. */
async function restoreWorld(): Promise<void> {
  const { db } = runtime.database;
  await db.updateTable("modpacks").set({ isActive: true }).where("id", "=", world.modpackId).execute();
  await db
    .updateTable("modpackMods")
    .set({ isActive: true })
    .where("modpackId", "=", world.modpackId)
    .where("modId", "=", world.modId)
    .execute();
  await db
    .deleteFrom("modpackMembers")
    .where("modpackId", "=", world.modpackId)
    .where("userId", "=", world.strangerId)
    .execute();
  await db
    .insertInto("modpackMembers")
    .values({ modpackId: world.modpackId, userId: world.memberId, permission: ["read"] })
    .onConflict((conflict) => conflict.columns(["modpackId", "userId"]).doNothing())
    .execute();
  for (const who of ["owner", "stranger"] as const) {
    const userId = who === "owner" ? world.ownerId : world.strangerId;
    if (!(await runtime.sessions.validateSession(credentials[who].session))) {
      credentials[who].session = (await runtime.sessions.createSession(userId)).token;
    }
  }
  const spare = await db.selectFrom("apiTokens").select("id").where("id", "=", world.spareTokenId).executeTakeFirst();
  if (!spare) world.spareTokenId = (await createApiToken(credentials.owner.session, "spare")).id;
}

beforeAll(async () => {
  steam = await startFakeSteam();
  // Its answers, however hostile the request, are held against the document when it stops.
  testService = await startTestService({
    env: { WORKSHOP_API_URL: steam.url, WORKSHOP_TIMEOUT_MS: "2000", WORKSHOP_MAX_RETRIES: "0" },
    role: "api",
  });
  runtime = testService.runtime;
  for (const id of ["101", "102", "103"]) steam.items.set(id, fakeItem(id));
  steam.collections.set("5000", ["101", "102"]);

  const owner = await signIn(service(), { name: "Hostile Owner" });
  const stranger = await signIn(service(), { name: "Hostile Stranger" });
  const member = await signIn(service(), { name: "Hostile Member" });
  credentials.owner = { session: owner.token, token: (await createApiToken(owner.token, "owner")).token };
  credentials.stranger = { session: stranger.token, token: (await createApiToken(stranger.token, "stranger")).token };
  const spare = await createApiToken(owner.token, "spare");

  const ownerHeaders = { authorization: `Bearer ${credentials.owner.token}`, "content-type": "application/json" };
  const modpack = await inject({
    method: "POST",
    url: "/modpacks",
    headers: ownerHeaders,
    payload: JSON.stringify({ name: "Hostile target", description: "seed", isPublic: false }),
  });
  expect(modpack.statusCode).toBe(201);
  const modpackId = String(modpack.json().id);
  const link = await inject({
    method: "POST",
    url: `/modpacks/${modpackId}/mods`,
    headers: ownerHeaders,
    payload: JSON.stringify({ modAttribute: "101" }),
  });
  expect(link.statusCode).toBe(201);
  const modId = String(link.json().modId);
  const exported = await inject({
    method: "POST",
    url: `/modpacks/${modpackId}/server-file`,
    headers: ownerHeaders,
    payload: JSON.stringify({ version: "41x" }),
  });
  expect(exported.statusCode).toBeLessThan(300);
  const notification = await runtime.database.db
    .insertInto("notifications")
    .values({ userId: owner.userId, title: "Seed", content: "seed", type: "info", metadata: "{}" })
    .returning("id")
    .executeTakeFirstOrThrow();
  world = {
    modpackId,
    modId,
    ownerId: owner.userId,
    strangerId: stranger.userId,
    memberId: member.userId,
    exportId: String(exported.json().exportId),
    notificationId: notification.id,
    spareTokenId: spare.id,
  };
  await restoreWorld();

  const openapi = await inject({ method: "GET", url: "/openapi.json" });
  expect(openapi.statusCode).toBe(200);
  document = openapi.json() as unknown as OpenApiDocument;
}, 120_000);

afterAll(async () => {
  process.stdout.write(
    `hostile input: ${requestsTried} requests tried; statuses ${JSON.stringify(Object.fromEntries([...statusCounts].sort()))}\n`,
  );
  if (process.env.HOSTILE_DEBUG)
    process.stdout.write(
      `${[...perOperation]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join("\n")}\n`,
    );
  try {
    await testService?.stop();
  } finally {
    await steam?.close();
  }
});

const errorShape = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  const record = body as Record<string, unknown>;
  if (keys.length === 1 && keys[0] === "message") {
    return record.message === "Unauthorized" || record.message === "Do not have permission";
  }
  if (keys.length !== 1 || keys[0] !== "error") return false;
  const error = record.error as Record<string, unknown> | null;
  if (typeof error !== "object" || error === null) return false;
  const allowed = new Set(["message", "code", "issues"]);
  if (!Object.keys(error).every((key) => allowed.has(key))) return false;
  if (typeof error.message !== "string" || error.message.length === 0) return false;
  if (typeof error.code !== "string") return false;
  if (error.issues !== undefined) {
    if (!Array.isArray(error.issues)) return false;
    for (const issue of error.issues as Array<Record<string, unknown>>) {
      if (typeof issue?.path !== "string" || typeof issue.message !== "string") return false;
    }
  }
  return true;
};

/**
 * The built-in development identity provider stands in for an external OAuth provider: its token
 * and userinfo endpoints answer RFC 6749 `{ error }` bodies, and its sign-in form is re-rendered
 * as HTML with a 400 when a field is wrong — what its OpenAPI entries document. Those error bodies
 * are checked against that, not against the service's own shapes.
 */
const oauthErrorShape = (body: unknown): boolean =>
  typeof body === "object" &&
  body !== null &&
  Object.keys(body).length === 1 &&
  typeof (body as { error?: unknown }).error === "string";

function buildUrl(operation: Operation, request: GeneratedRequest): string {
  let path = operation.path;
  operation.pathParameters.forEach((parameter, index) => {
    path = path.replace(`{${parameter.name}}`, encodeLoose(request.pathValues[index] ?? ""));
  });
  const query = request.query.map(([key, value]) => `${encodeLoose(key)}=${encodeLoose(value)}`).join("&");
  return query ? `${path}?${query}` : path;
}

function headersFor(request: GeneratedRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  if (request.contentType && request.body !== undefined) headers["content-type"] = request.contentType;
  if (request.foreignOrigin) headers.origin = "https://evil.example";
  if (request.credential === "junk") {
    headers.authorization = "Bearer ' OR 1=1 --";
    headers.cookie = `${SESSION_COOKIE}=<script>; other=__proto__`;
    return headers;
  }
  if (request.caller === "anonymous") return headers;
  const credential = credentials[request.caller];
  if (request.credential === "bearer") headers.authorization = `Bearer ${credential.token}`;
  else headers.cookie = `${SESSION_COOKIE}=${credential.session}`;
  return headers;
}

describe("hostile input on every operation of the OpenAPI document", () => {
  it("reads the document, and the state taken around requests sees a change", async () => {
    expect(readOperations(document).length).toBeGreaterThan(40);
    const { db } = runtime.database;
    const before = await snapshot(runtime);
    await db.updateTable("modpacks").set({ description: "changed" }).where("id", "=", world.modpackId).execute();
    expect(await snapshot(runtime)).not.toEqual(before);
    await db.updateTable("modpacks").set({ description: "seed" }).where("id", "=", world.modpackId).execute();
  });

  // The operations are known only once beforeAll has loaded the document, so one test walks them all.
  it("answers every operation without a 5xx, with a spec error body, and without side effects on rejection", async () => {
    const operations = readOperations(document);
    const ids = [
      world.modpackId,
      world.modId,
      world.ownerId,
      world.strangerId,
      world.memberId,
      world.exportId,
      world.notificationId,
    ];
    const tried: string[] = [];
    for (const operation of operations) {
      const signature = `${operation.method} ${operation.path}`;
      tried.push(signature);
      const pool = operation.path.startsWith("/auth/tokens") ? [...ids, world.spareTokenId] : ids;
      await fc.assert(
        fc.asyncProperty(requestFor(operation, document, pool), async (request) => {
          // The event stream never ends for a signed-in caller (inject would wait forever); the
          // anonymous caller's 401 is still checked.
          if (
            operation.path === "/notifications/stream" &&
            (request.caller !== "anonymous" || request.credential === "junk")
          ) {
            return;
          }
          const url = buildUrl(operation, request);
          const before = await snapshot(runtime);
          const response = await runtime.app!.inject({
            method: operation.method as "GET",
            url,
            headers: headersFor(request),
            ...(request.body === undefined ? {} : { payload: request.body }),
          });
          requestsTried += 1;
          statusCounts.set(response.statusCode, (statusCounts.get(response.statusCode) ?? 0) + 1);
          if (process.env.HOSTILE_DEBUG) {
            const key = `${signature} ${response.statusCode}`;
            perOperation.set(key, (perOperation.get(key) ?? 0) + 1);
          }
          const context = `${signature} → ${response.statusCode} ${response.body.slice(0, 300)}`;

          expect(response.statusCode, context).toBeLessThan(500);
          expect(Object.getOwnPropertyNames(Object.prototype).sort(), context).toEqual(prototypeKeys);
          expect(({} as Record<string, unknown>).polluted, context).toBeUndefined();

          if (response.statusCode >= 400) {
            const devIdp = operation.path.startsWith("/dev-idp/");
            const contentType = String(response.headers["content-type"] ?? "");
            if (devIdp && contentType.startsWith("text/html")) {
              expect(operation.path, context).toBe("/dev-idp/authorize");
              expect(response.statusCode, context).toBe(400);
            } else {
              expect(contentType, context).toMatch(/^application\/json/);
              const body: unknown = JSON.parse(response.body);
              expect(errorShape(body) || (devIdp && oauthErrorShape(body)), context).toBe(true);
            }
            const after = await snapshot(runtime);
            expect(after, `${context}\nchanged the database`).toEqual(before);
          } else if (operation.method !== "GET" || operation.path === "/auth/idp/callback") {
            await restoreWorld();
          }
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
    }
    expect(tried).toContain("POST /auth/sign-out");
    expect(tried).toContain("GET /modpacks/export/{exportId}/download");
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 300_000);
});
