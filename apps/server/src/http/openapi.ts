import {
  appRouter,
  errorBodySchema,
  exampleId,
  exampleTime,
  type Meta,
  noPermissionBodySchema,
  operations,
  unauthorizedBodySchema,
  webhookEventSchemas,
  webhookEventTypes,
} from "@modpack/contract";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { OpenApiPaths } from "../edge/routes.js";
import { bodyMethods } from "./hardening.js";

const errorDescriptions: Record<number, string> = {
  400: "The input breaks a rule of the schema (the body lists the issues), a parameter or the body holds the NUL character, or the body is malformed JSON (on every operation, including those that take no input).",
  401: "No valid session cookie or Bearer token.",
  403: "The caller may not do this: the role lacks the permission, or a resource rule (owner, member) refuses.",
  404: "The resource does not exist, or is not visible to the caller.",
  409: "The request conflicts with the resource's current state.",
  413: "The request body is larger than 1 MiB.",
  414: "A path parameter is longer than 100 characters; the router refuses it before the operation runs.",
  415: "The request body is not JSON.",
  422: "The input is well-formed but cannot be carried out.",
  429: "The caller has too much of this queued or in progress; try again after `Retry-After` seconds.",
  500: "An unexpected failure; the body never carries its cause.",
  502: "An upstream service (the workshop or the identity provider) failed.",
  503: "The service cannot answer now: the database is unreachable, busy past the pool wait (`DATABASE_POOL_TIMEOUT_MS`) or ran a statement past its timeout (`DATABASE_STATEMENT_TIMEOUT_MS`), or (for costly work such as the modpack check) too many calls are already queued. Retry after the `Retry-After` seconds.",
};

/** The operation groups, in the order a user meets them, with what each is for. */
const tagOrder: Array<[name: string, description: string]> = [
  [
    "Sign-in",
    "Sign-in through the identity provider (a session cookie), the current session, and personal API tokens for `Authorization: Bearer`.",
  ],
  ["Modpacks", "Collections of workshop mods owned by a user, public or private."],
  ["Mods of a modpack", "The mods in a modpack: list, add (by workshop URL, workshop id or in-game id) and remove."],
  [
    "Modpack check",
    "Whether a modpack will load: missing or late requirements, clashing or missing in-game ids, builds, and a suggested load order.",
  ],
  ["Members", "Sharing a modpack with other users, with per-member permissions."],
  ["Import", "Filling a modpack from a Steam Workshop collection, in the background."],
  [
    "Server files",
    "The load order and in-game id selection of a modpack, and `servertest.ini` files generated from it.",
  ],
  ["Notifications", "What happened to your modpacks, imports and files; listed, marked read, or streamed live."],
  [
    "Webhooks",
    "A modpack's events POSTed to your URL, signed the Standard Webhooks way: managed by the modpack's owner; the bodies are in the document's `webhooks` section.",
  ],
  ["Catalogue", "Every workshop mod the service knows."],
  ["Admin", "Users, roles, verification badges and service statistics. Requires the `admin` role (`admin.access`)."],
  ["Health", "Liveness and readiness probes."],
  ["Documentation", "This document and the interactive reference."],
];

interface JsonSchema {
  $ref?: string;
  example?: unknown;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  type?: string | string[];
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/**
 * An example value of a schema, from the `example`s its fields declare. For a request body only
 * fields with an example (or a default) are filled in, so the example is what a user would send;
 * a required field without one gives `undefined`. For a response every field gets a value, by its
 * type where it declares no example.
 */
function exampleOf(
  schema: JsonSchema | undefined,
  components: Record<string, JsonSchema>,
  mode: "request" | "response",
  depth = 0,
): unknown {
  if (!schema || depth > 20) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.$ref) {
    const name = schema.$ref.replace("#/components/schemas/", "");
    return exampleOf(components[name], components, mode, depth + 1);
  }
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (branches) {
    for (const branch of branches) {
      if (branch.type === "null") continue;
      const value = exampleOf(branch, components, mode, depth + 1);
      if (value !== undefined) return value;
    }
    return mode === "response" && branches.some((branch) => branch.type === "null") ? null : undefined;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((name) => name !== "null") : schema.type;
  if (type === "object" || schema.properties) {
    const value: Record<string, unknown> = {};
    const required = new Set(schema.required ?? []);
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const item = exampleOf(property, components, mode, depth + 1);
      if (item !== undefined) value[key] = item;
      else if (required.has(key)) return undefined;
    }
    return value;
  }
  if (type === "array") {
    const item = exampleOf(schema.items, components, mode, depth + 1);
    return item === undefined ? undefined : [item];
  }
  if (mode === "request") return undefined;
  if (type === "string") return schema.format === "uuid" ? exampleId : schema.format === "date-time" ? exampleTime : "";
  if (type === "integer" || type === "number") return 0;
  if (type === "boolean") return false;
  return undefined;
}

interface Media {
  schema?: JsonSchema;
  example?: unknown;
}

interface Operation {
  parameters?: Array<{ in: string; schema?: JsonSchema; example?: unknown }>;
  requestBody?: { content?: Record<string, Media> };
  /** A response, or a `$ref` to a shared one (which has neither description nor content here). */
  responses: Record<string, { description?: string; headers?: object; content?: Record<string, Media>; $ref?: string }>;
  security?: object[];
  [extension: `x-${string}`]: unknown;
}

/**
 * The OpenAPI 3.1 document of every route: the contract's procedures (through trpc-to-openapi)
 * and the plain Fastify routes (`extraPaths`). Each operation gets its real success status, its
 * error responses with the service's error bodies, the role permission it needs as `x-permission`,
 * and examples.
 */
export function buildOpenApiDocument(options: { publicUrl: string; extraPaths: OpenApiPaths }): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: "Modpack Collection Service",
    version: "1.0.0",
    description:
      'Curate Project Zomboid modpacks with friends, import Steam Workshop collections, tune load order and download a ready `servertest.ini`.\n\nSign in at `/auth/idp` in a browser (a session cookie), or send `Authorization: Bearer <token>` with a token from `POST /auth/tokens`.\n\n**Types are strict.** A JSON body\'s values keep their JSON type: a string where a boolean or a number goes (`"isPublic": "false"`) is a 400 naming the field, never read as `true`. Query parameters are read exactly: integers as plain decimal digits (`page=2`, not `2.0`, `+2` or `1e1`), booleans as `true` or `false`; an empty parameter (`page=`) is the same as none.\n\n**Text is stored as UTF-8.** A lone surrogate in a JSON string (`"\\ud800"` without its pair) is stored, and answered, as U+FFFD; NUL (`\\u0000`) is refused with a 400.',
    license: { name: "MIT", identifier: "MIT" },
    baseUrl: options.publicUrl,
    securitySchemes: {
      cookieAuth: { type: "apiKey", in: "cookie", name: "svcauth.session_token" },
      bearerAuth: { type: "http", scheme: "bearer" },
    },
    paths: options.extraPaths,
    defs: {
      Error: errorBodySchema,
      Unauthorized: unauthorizedBodySchema,
      NoPermission: noPermissionBodySchema,
      ...Object.fromEntries(webhookEventTypes.map((type) => [eventSchemaName(type), webhookEventSchemas[type]])),
    },
  });
  document.webhooks = webhookEntries();
  document.security = [{ cookieAuth: [] }, { bearerAuth: [] }];
  // The service's own address: for anyone, not an internal audience.
  for (const server of document.servers ?? []) Object.assign(server, { "x-internal": false });
  document.tags = tagOrder.map(([name, description]) => ({ name, description }));

  // trpc-to-openapi registers default error schemas that the responses below replace.
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonSchema>;
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];

  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...sharedHeaders },
    responses: { ...document.components?.responses, ...sharedResponses },
  };

  const procedures = new Map<string, Meta>();
  for (const { meta } of operations()) {
    if (meta.openapi) procedures.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta);
  }
  const rows: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      const meta = procedures.get(`${method} ${path}`);
      if (meta) describeProcedure(operation, meta);
      describeTransport(operation, method);
      addExamples(operation, schemas);
      rows.push(permissionRow(method, path, operation));
    }
  }
  document.info.description = `${document.info.description ?? ""}\n\n${permissionTable(rows)}`;
  declareIntegerFormats(document);
  return document;
}

/** The component name of an event's body: `mods.updated` → `ModsUpdatedEvent`. */
function eventSchemaName(type: string): string {
  return `${type
    .split(".")
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("")}Event`;
}

const eventDescriptions: Record<(typeof webhookEventTypes)[number], string> = {
  "mods.updated":
    "One per modpack per run of the mod update (daily, `POST /mods/update-all`, or a refresh of one mod that finds a change): the modpack's mods updated on the workshop, those removed, hidden or delisted, and the new error findings of the modpack check that the run caused. A run that finds nothing new sends nothing.",
  "modpack.changed":
    "Mods added or removed, the load order or selection changed, and by whom: the first change opens a window (60 seconds by default) and one event is sent when it closes.",
  "export.ready": "A requested server file is ready; `downloadPath` is where to download it.",
  "export.failed": "A requested server file could not be made; `error` says why.",
  "import.finished": "A workshop collection import ended (`completed`, possibly with `modsFailed`, or `failed`).",
  "webhook.test": "Sent by `POST /modpacks/{id}/webhooks/{webhookId}/test`.",
};

/**
 * The OpenAPI 3.1 `webhooks` section: what a webhook receives, one entry per event. Every request
 * carries `webhook-id` (the same on every retry), `webhook-timestamp` and `webhook-signature`
 * (Standard Webhooks).
 */
function webhookEntries(): NonNullable<OpenAPIObject["webhooks"]> {
  const headers = (
    [
      ["webhook-id", "The event's id: the same on every retry of it", 100],
      ["webhook-timestamp", "When this attempt was signed, in seconds since the epoch", 20],
      [
        "webhook-signature",
        "`v1,<base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}>` keyed by the secret's bytes; two, space-separated, for 24 hours after a rotation",
        200,
      ],
    ] as const
  ).map(([name, description, maxLength]) => ({
    name,
    in: "header" as const,
    required: true,
    description,
    schema: { type: "string" as const, maxLength },
  }));
  return Object.fromEntries(
    webhookEventTypes.map((type) => [
      type,
      {
        post: {
          summary: type,
          description: `${eventDescriptions[type]}\n\nA webhook of format \`discord\` receives Discord embeds instead of this body.`,
          operationId: `webhook-${type}`,
          tags: ["Webhooks"],
          parameters: headers,
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}` } } },
          },
          responses: {
            "200": { description: "Any 2xx: delivered. 410 disables the webhook; anything else is retried." },
          },
        },
      },
    ]),
  );
}

/** One operation's line of the permission table. */
function permissionRow(method: string, path: string, operation: Operation): string {
  const permission = operation["x-permission"];
  const scope = operation["x-token-scope"];
  const token = scope === undefined ? "yes (no credentials needed)" : scope === "read" ? "yes" : "no";
  const report = scope === undefined ? "yes (no credentials needed)" : scope === "write" ? "no" : "yes";
  const limited = operation["x-whole-account"] ? "no" : "yes";
  return `| \`${method.toUpperCase()} ${path}\` | ${permission ? `\`${permission}\`` : "none"} | ${token} | ${report} | ${limited} |`;
}

/** Which role permission each operation needs, and which a read-only API token may call. */
function permissionTable(rows: string[]): string {
  return [
    '**Permissions.** Each operation\'s role permission (`x-permission`) and API token scope (`x-token-scope`): a read-only token (`scopes: ["read"]`) may call the operations marked yes and gets 403 `Do not have permission` from the rest; a server\'s token (`scopes: ["read", "report"]`) may call those and the operations whose scope is `report` (start reports, column "Report token"), as may every token with `write`. A token limited to modpacks (`modpackIds`) may call what is marked yes, reaching those modpacks only (any other answers as it would to a stranger), and is refused the operations over the whole account (`x-whole-account`: tokens, notifications, `/admin`).',
    "",
    "| Operation | Role permission | Read-only token | Report token | Token limited to modpacks |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

/**
 * Gives every integer schema the format its bounds allow (`int32` or `int64`), so generated clients
 * pick the right type. Examples are values, not schemas, and are left as they are.
 */
function declareIntegerFormats(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) declareIntegerFormats(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const schema = node as JsonSchema & { minimum?: number; maximum?: number };
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("integer") && schema.format === undefined) {
    const int32 = (schema.minimum ?? -Infinity) >= -(2 ** 31) && (schema.maximum ?? Infinity) <= 2 ** 31 - 1;
    schema.format = int32 ? "int32" : "int64";
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== "example" && key !== "examples") declareIntegerFormats(value);
  }
}

/** A procedure's public access, its real success status and its error responses with the service's bodies. */
function describeProcedure(operation: Operation, meta: Meta): void {
  const { responses } = operation;
  const isPublic = meta.openapi?.protect === false;
  // Public: no credentials needed, though a signed-in caller may see more (e.g. its own private modpack).
  if (isPublic) operation.security = [{}, { cookieAuth: [] }, { bearerAuth: [] }];
  const success = meta.successStatus ?? 200;
  const ok = responses["200"];
  if (ok && success !== 200) {
    delete responses["200"];
    responses[success] = success === 204 ? { description: ok.description } : ok;
    if (meta.alreadyThere && ok.content) {
      responses["200"] = { description: meta.alreadyThere, content: structuredClone(ok.content) };
    }
  }
  operation["x-rate-limit"] = meta.rateLimit ?? "general";
  if (meta.cache) {
    const success = responses["200"];
    if (success) success.headers = { ...success.headers, ...cacheHeaders };
    responses["304"] = {
      description: "Not modified: `If-None-Match` names the current `ETag`; no body.",
      headers: cacheHeaders,
    };
  }
  const statuses = new Set<number>(meta.errors ?? []);
  if (!isPublic) statuses.add(401);
  if (meta.permission) {
    statuses.add(403);
    operation["x-permission"] = meta.permission;
  }
  if (!isPublic && meta.scope) {
    // A read-only token is refused a write with the role permission's 403.
    if (meta.scope === "write") statuses.add(403);
    operation["x-token-scope"] = meta.scope;
  }
  if (meta.wholeAccount) operation["x-whole-account"] = true;
  statuses.add(500);
  for (const key of Object.keys(responses)) if (Number(key) >= 400) delete responses[key];
  // Integer keys enumerate in ascending order, so the statuses need no sorting.
  for (const status of statuses) {
    const schema =
      status === 401
        ? { $ref: "#/components/schemas/Unauthorized" }
        : status === 403 && (meta.permission || (!isPublic && meta.scope === "write"))
          ? { oneOf: [{ $ref: "#/components/schemas/NoPermission" }, { $ref: "#/components/schemas/Error" }] }
          : { $ref: "#/components/schemas/Error" };
    responses[status] = errorResponse(status, schema);
  }
}

const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

/** The answer of an error status: what it means, with the service's error body (or `schema`). */
function errorResponse(status: number, schema: JsonSchema = { $ref: "#/components/schemas/Error" }) {
  return { description: errorDescriptions[status] ?? "Error", content: { "application/json": { schema } } };
}

/** Headers several operations send, declared once. */
const sharedHeaders: NonNullable<OpenAPIObject["components"]>["headers"] = {
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer", format: "int32", minimum: 1, maximum: 86_400 },
  },
  "X-RateLimit-Limit": {
    description: "Requests allowed in the current window of the operation's rate limit.",
    schema: { type: "integer", format: "int32", minimum: 0, maximum: 2 ** 31 - 1 },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current window.",
    schema: { type: "integer", format: "int32", minimum: 0, maximum: 2 ** 31 - 1 },
  },
  "X-RateLimit-Reset": {
    description: "Seconds until the window starts again.",
    schema: { type: "integer", format: "int32", minimum: 0, maximum: 86_400 },
  },
  "Access-Control-Allow-Origin": {
    description:
      "The request's `Origin`, echoed when it is `PUBLIC_URL`'s origin or listed in `ORIGIN_ALLOWED` (CORS); absent otherwise.",
    schema: { type: "string", maxLength: 2048 },
  },
  ETag: {
    description: "The version of this answer; send it back in `If-None-Match` to get a 304 while it holds.",
    schema: { type: "string", maxLength: 128 },
  },
};

/** Headers on every answer of a rate-limited operation: the state of its limit, and CORS's. */
const answerHeaders = {
  "Access-Control-Allow-Origin": { $ref: "#/components/headers/Access-Control-Allow-Origin" },
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};
const cacheHeaders = { ETag: { $ref: "#/components/headers/ETag" } };
const retryAfter = { "Retry-After": { $ref: "#/components/headers/Retry-After" } };

/** Answers any operation may give, declared once and referenced by each operation. */
const sharedResponses = {
  TooManyRequests: {
    description:
      "Too many requests: the caller spent its rate limit for this window, or has too much of this work queued or in progress. Try again after `Retry-After` seconds.",
    headers: { ...retryAfter, ...answerHeaders },
    content: errorContent,
  },
  ServiceUnavailable: {
    description: errorDescriptions[503] ?? "",
    headers: { ...retryAfter, "Access-Control-Allow-Origin": answerHeaders["Access-Control-Allow-Origin"] },
    content: errorContent,
  },
};

/**
 * What the HTTP layer in front of every operation can answer, whatever the operation does: a NUL in
 * any parameter or malformed JSON (400), a path parameter too long for the router (414), a
 * cross-site write with the session cookie (403), a body over 1 MiB (413) or not JSON (415), a
 * spent rate limit (429) and an unavailable database (503).
 * Operations with a rate limit declare its headers on each answer.
 */
function describeTransport(operation: Operation, method: string): void {
  const { responses } = operation;
  responses["400"] ??= errorResponse(400);
  if (operation.parameters?.some((parameter) => parameter.in === "path")) {
    responses["414"] = errorResponse(414);
  }
  // Requests that may carry a body meet the body rules (size, media type, cross-site).
  if (bodyMethods.has(method.toUpperCase())) {
    const forbidden = responses["403"]?.content?.["application/json"];
    if (!forbidden) responses["403"] = { description: crossSite, content: errorContent };
    else if (forbidden.schema?.$ref === "#/components/schemas/NoPermission") {
      forbidden.schema = { oneOf: [forbidden.schema, { $ref: "#/components/schemas/Error" }] };
    }
    responses["413"] = errorResponse(413);
    responses["415"] = errorResponse(415);
  }
  const limited = operation["x-rate-limit"] !== "none";
  if (limited) responses["429"] = { $ref: "#/components/responses/TooManyRequests" };
  responses["503"] = { $ref: "#/components/responses/ServiceUnavailable" };
  if (limited) {
    for (const response of Object.values(responses)) {
      if (!response.$ref) response.headers = { ...answerHeaders, ...response.headers };
    }
  }
}

const crossSite =
  "A write sent with the session cookie from an origin that is neither `PUBLIC_URL` nor in `ORIGIN_ALLOWED` (cross-site request forgery).";

/**
 * Gives the path parameters, request body and JSON success responses an example built from the
 * schemas' own `example`s, so the interactive reference prefills requests that work and shows real answers.
 */
function addExamples(operation: Operation, components: Record<string, JsonSchema>): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === "path") parameter.example ??= exampleOf(parameter.schema, components, "response");
  }
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    media.example ??= exampleOf(media.schema, components, "request");
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    const media = response.content?.["application/json"];
    if (Number(status) >= 400 || !media || media.example !== undefined) continue;
    const example = exampleOf(media.schema, components, "response");
    // A create's 200 answers a thing that was already there.
    const existed = status === "200" && operation.responses["201"] && typeof example === "object" && example;
    media.example = existed && "created" in existed ? { ...existed, created: false } : example;
  }
}
