import {
  allProcedureMeta,
  appRouter,
  errorBodySchema,
  type Meta,
  noPermissionBodySchema,
  unauthorizedBodySchema,
} from "@modpack/contract";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { ZodOpenApiPathsObject } from "zod-openapi";

export type OpenApiPaths = ZodOpenApiPathsObject;

const errorDescriptions: Record<number, string> = {
  400: "The input breaks a rule of the schema (the body lists the issues).",
  401: "No valid session cookie or Bearer token.",
  403: "The caller may not do this: the role lacks the permission, or a resource rule (owner, member) refuses.",
  404: "The resource does not exist, or is not visible to the caller.",
  409: "The request conflicts with the resource's current state.",
  413: "The request body is larger than 1 MiB.",
  415: "The request body is not JSON.",
  422: "The input is well-formed but cannot be carried out.",
  500: "An unexpected failure; the body never carries its cause.",
  502: "An upstream service (the workshop or the identity provider) failed.",
  503: "The service cannot reach its database; retry shortly.",
};

function errorSchemaRef(status: number, permission: boolean): object {
  if (status === 401) return { $ref: "#/components/schemas/Unauthorized" };
  if (status === 403 && permission) {
    return {
      oneOf: [{ $ref: "#/components/schemas/NoPermission" }, { $ref: "#/components/schemas/Error" }],
    };
  }
  return { $ref: "#/components/schemas/Error" };
}

/** Each REST procedure's meta, keyed by `METHOD path` as it appears in the document. */
function proceduresByRoute(): Map<string, Meta> {
  const routes = new Map<string, Meta>();
  for (const meta of allProcedureMeta()) {
    if (meta.openapi) routes.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta);
  }
  return routes;
}

const tagDescriptions: Record<string, string> = {
  Admin: "Users, roles, verification badges and service statistics. Requires the `admin` role (`admin.access`).",
  Auth: "Sign-in through the identity provider (a session cookie), the current session, and personal API tokens for `Authorization: Bearer`.",
  Documentation: "This document and the interactive reference.",
  Export: "The load order and in-game id selection of a modpack, and `servertest.ini` files generated from it.",
  Health: "Liveness and readiness probes.",
  Import: "Filling a modpack from a Steam Workshop collection, in the background.",
  Members: "Sharing a modpack with other users, with per-member permissions.",
  "Modpack mods": "The mods in a modpack: list, add (by workshop URL, workshop id or in-game id) and remove.",
  Modpacks: "Collections of workshop mods owned by a user, public or private.",
  Mods: "The catalogue of every workshop mod the service knows.",
  Notifications: "What happened to your modpacks, imports and files; listed, marked read, or streamed live.",
};

interface ResponseObject {
  description: string;
  content?: Record<string, { schema: object }>;
}
interface OperationObject {
  responses: Record<string, ResponseObject>;
  parameters?: unknown[];
  requestBody?: unknown;
  [extension: `x-${string}`]: unknown;
}

/**
 * The OpenAPI 3.1 document of every route: the contract's procedures (through trpc-to-openapi)
 * and the plain Fastify routes (`extraPaths`). Each operation gets its real success status, its
 * error responses with the spec's bodies, and the role permission it needs as `x-permission`.
 */
export function buildOpenApiDocument(options: { publicUrl: string; extraPaths: OpenApiPaths }): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: "Modpack Collection Service",
    version: "1.0.0",
    description:
      "Curate Project Zomboid modpacks with friends, import Steam Workshop collections, tune load order and download a ready `servertest.ini`.\n\nSign in at `/auth/idp` in a browser (a session cookie), or send `Authorization: Bearer <token>` with a token from `POST /auth/tokens`.",
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
    },
  });

  // trpc-to-openapi registers default error schemas that the responses below replace.
  const schemas = document.components?.schemas ?? {};
  for (const name of Object.keys(schemas)) if (name.startsWith("error.")) delete schemas[name];
  document.security = [{ cookieAuth: [] }, { bearerAuth: [] }];
  document.info.license = { name: "MIT", identifier: "MIT" };

  const routes = proceduresByRoute();
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item as Record<string, unknown>)) {
      const operation = value as OperationObject & { tags?: string[]; security?: unknown[] };
      if (typeof operation !== "object" || !operation.responses) continue;
      for (const tag of operation.tags ?? []) tags.add(tag);
      const meta = routes.get(`${method} ${path}`);
      if (!meta?.openapi) continue;
      if (meta.openapi.protect === false) {
        // Public: no credentials needed, though a signed-in caller may see more (e.g. its own private modpack).
        operation.security = [{}, { cookieAuth: [] }, { bearerAuth: [] }];
      }
      const success = meta.successStatus ?? 200;
      const ok = operation.responses["200"];
      if (ok && success !== 200) {
        delete operation.responses["200"];
        operation.responses[String(success)] =
          success === 204 ? { description: "Done; no content." } : { ...ok, description: ok.description };
      }
      const statuses = new Set<number>(meta.errors ?? []);
      if (meta.openapi.protect !== false) statuses.add(401);
      if (meta.permission) {
        statuses.add(403);
        operation["x-permission"] = meta.permission;
      }
      if (operation.parameters?.length || operation.requestBody) statuses.add(400);
      statuses.add(500);
      for (const key of Object.keys(operation.responses)) {
        if (Number(key) >= 400) delete operation.responses[key];
      }
      for (const status of [...statuses].sort((a, b) => a - b)) {
        operation.responses[String(status)] = {
          description: errorDescriptions[status] ?? "Error",
          content: { "application/json": { schema: errorSchemaRef(status, Boolean(meta.permission)) } },
        };
      }
    }
  }
  document.tags = [...tags].sort().map((name) => ({ name, description: tagDescriptions[name] ?? name }));
  return document;
}
