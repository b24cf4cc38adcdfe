import {
  type Admission,
  admissionOf,
  admissionText,
  admit,
  type Caller,
  errorBodySchema,
  noPermissionBodySchema,
  type Permission,
  type TokenScope,
  unauthorizedBodySchema,
} from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
} from "fastify";
import { z } from "zod";
import type {
  ZodOpenApiHeadersObject,
  ZodOpenApiOperationObject,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from "zod-openapi";
import { sendError } from "./errors.js";

/** The name of the session cookie, set by sign-in and read by every request. */
export const SESSION_COOKIE = "svcauth.session_token";

/** Entries of the OpenAPI document's `paths`, as plain routes declare theirs. */
export type OpenApiPaths = ZodOpenApiPathsObject;

/** Resolves the caller of a request from its credentials; may refresh the session cookie on the reply. */
export type Authenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<Caller | null>;

/** The request-rate limit of a route: its per-route config and the hook that names whose budget it spends. */
export interface RouteLimit {
  config: FastifyContextConfig;
  onRequest: onRequestAsyncHookHandler;
}

/** The limit a plain route counts against: the general one, sign-in's (per IP), or none. */
export type RouteLimitGroup = "general" | "signIn" | "none";

/** What the app hands every route module when it registers it (routes that are all public need nothing). */
export interface RouteModuleOptions {
  authenticate?: Authenticate;
  /** The rate limit of a group, undefined when none applies. */
  limit?: (group: RouteLimitGroup) => RouteLimit | undefined;
}

/** Plain Fastify routes (sign-in, redirects, downloads, streams, docs) with their OpenAPI paths. */
export interface RouteModule {
  plugin: FastifyPluginAsync<RouteModuleOptions>;
  paths: OpenApiPaths;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A response of a route: what it means, its headers (a zod object) and its body's schema per media type. */
export interface RouteResponse {
  description: string;
  headers?: ZodOpenApiHeadersObject;
  content?: Record<string, { schema: z.ZodType; example?: unknown }>;
}

type Access = Permission | "public";

/**
 * What a route's handler gets: the request, its reply, the caller (on a public route, the one its
 * credentials name when it reads them, else null) and the parsed input.
 */
export interface RouteContext<Params, Query, RouteAccess extends Access> {
  request: FastifyRequest;
  reply: FastifyReply;
  caller: RouteAccess extends "public" ? Caller | null : Caller;
  params: Params;
  query: Query;
}

type AnyObject = z.ZodObject;

export interface RouteDefinition<Params extends AnyObject, Query extends AnyObject, RouteAccess extends Access> {
  method: Method;
  /** The path as the document writes it, parameters in braces: `/modpacks/export/{exportId}/download`. */
  path: `/${string}`;
  operationId: string;
  tags: string[];
  summary: string;
  /** What the route does and who may call it; a permission's requirement is appended. */
  description: string;
  /**
   * The role permission the route needs (a signed-in caller whose role holds it, checked before
   * anything else), or `public`: anyone, and the pipeline reads no credentials.
   */
  permission: RouteAccess;
  /** A public route that reads a session itself when one is sent: documented with optional credentials. */
  optionalSession?: boolean;
  /**
   * The API token scope a caller's credentials need, checked with the permission: `read` for what
   * changes nothing, `write` for the rest. Defaults to `read` for GET and `write` otherwise.
   */
  scope?: TokenScope;
  /** It acts on the caller's whole account: a token limited to modpacks is refused (403). */
  wholeAccount?: boolean;
  /**
   * A public route whose answer depends on who calls when credentials are sent (a public modpack to
   * anyone, a private one to its readers): the pipeline resolves the caller, null without valid
   * credentials, and documents them as optional.
   */
  optionalCaller?: boolean;
  params?: Params;
  query?: Query;
  /** The request body a route reads itself (its own content type parser), for the document. */
  requestBody?: { description: string; content: Record<string, { schema: z.ZodType; example?: unknown }> };
  /** The success and redirect responses, by status. */
  responses: Record<number, RouteResponse>;
  /**
   * The error statuses the route answers, with what each means; each has the service's error body.
   * 401 and the permission's 403 are implied by `permission`; a description here replaces theirs.
   */
  errors?: Record<number, string>;
  /** The request-rate limit it counts against (`general` unless it says). */
  rateLimit?: RouteLimitGroup;
  config?: FastifyContextConfig;
  /** The largest body the route takes, in bytes, when it is not the app's (1 MiB). */
  bodyLimit?: number;
  handler(context: RouteContext<z.output<Params>, z.output<Query>, RouteAccess>): Promise<unknown>;
}

/** A declared route, its types erased: what its module registers and documents. */
export type Route = RouteDefinition<AnyObject, AnyObject, Access>;

const signedIn: Record<string, string[]>[] = [{ cookieAuth: [] }, { bearerAuth: [] }];

function invalidInput(error: z.ZodError): TRPCError {
  return new TRPCError({ code: "BAD_REQUEST", message: "Invalid input", cause: error });
}

/** The body schema of an error status: 401 and the permission's 403 have fixed bodies. */
function errorSchema(status: number, permission: boolean, declared: boolean): z.ZodType {
  if (status === 401) return unauthorizedBodySchema;
  if (status === 403 && permission) {
    // A 403 the route declares itself (a resource rule) is the general body; the role's is fixed.
    return declared ? z.xor([noPermissionBodySchema, errorBodySchema]) : noPermissionBodySchema;
  }
  return errorBodySchema;
}

/** Who may call a route, from its declaration. */
function routeAdmission(route: Route): Admission {
  const signedIn = route.permission !== "public";
  return admissionOf(
    {
      permission: signedIn ? (route.permission as Permission) : undefined,
      scope: route.scope,
      wholeAccount: route.wholeAccount,
    },
    { signedIn, changes: route.method !== "GET" },
  );
}

function operationOf(definition: Route): ZodOpenApiOperationObject {
  const { permission } = definition;
  const needsPermission = permission !== "public";
  const takesCaller = needsPermission || definition.optionalCaller === true;
  const admission = routeAdmission(definition);
  const { scope } = admission;
  const descriptions: Record<number, string> = needsPermission
    ? {
        401: "No valid session cookie or Bearer token.",
        403: `The caller's role lacks \`${permission}\`${scope === "write" ? ", or the API token is read-only" : ""}.`,
        ...definition.errors,
      }
    : { ...definition.errors };
  const responses: ZodOpenApiResponsesObject = { ...definition.responses };
  for (const [status, description] of Object.entries(descriptions)) {
    const schema = errorSchema(Number(status), needsPermission, definition.errors?.[Number(status)] !== undefined);
    responses[status as `4${string}`] = { description, content: { "application/json": { schema } } };
  }
  const requestParams = {
    ...(definition.params ? { path: definition.params } : {}),
    ...(definition.query ? { query: definition.query } : {}),
  };
  return {
    tags: definition.tags,
    operationId: definition.operationId,
    summary: definition.summary,
    description: `${definition.description}\n\n${admissionText(admission, { readsCredentials: takesCaller })}`,
    ...(needsPermission ? { "x-permission": permission } : {}),
    ...(takesCaller ? { "x-token-scope": scope } : {}),
    "x-rate-limit": definition.rateLimit ?? "general",
    ...(definition.wholeAccount ? { "x-whole-account": true } : {}),
    security: needsPermission
      ? signedIn
      : definition.optionalSession || definition.optionalCaller
        ? [...signedIn, {}]
        : [],
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(definition.requestBody ? { requestBody: { required: true, ...definition.requestBody } } : {}),
    responses,
  };
}

/**
 * Declares a plain Fastify route the way procedures are declared: its path, who may call it, its
 * zod params and query, and its responses. `routeModule` serves it (`routeHandler`) and documents it
 * with the OpenAPI operation `operationOf` generates.
 */
export function defineRoute<
  RouteAccess extends Access,
  Params extends AnyObject = AnyObject,
  Query extends AnyObject = AnyObject,
>(definition: RouteDefinition<Params, Query, RouteAccess>): Route {
  return definition as unknown as Route;
}

/** The input of a route that takes no params or no query: one schema, built and compiled by zod once. */
const noFields = z.object({});

/**
 * A route's Fastify handler: the procedures' steps in their order (authenticate → permission → parse
 * params and query, a 400 with the issues), then its handler; every refusal is answered through
 * `sendError`. What a route needs is decided when it is registered, not on each request.
 */
function routeHandler(route: Route, authenticate: Authenticate) {
  const admission = routeAdmission(route);
  const readsCaller = admission.signedIn || route.optionalCaller === true;
  const paramsSchema = route.params ?? noFields;
  const querySchema = route.query ?? noFields;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    let caller: Caller | null = null;
    try {
      caller = admit(readsCaller ? await authenticate(request, reply) : null, admission);
    } catch (refusal) {
      return sendError(reply, refusal);
    }
    const params = paramsSchema.safeParse(request.params ?? {});
    if (!params.success) return sendError(reply, invalidInput(params.error));
    const query = querySchema.safeParse(request.query ?? {});
    if (!query.success) return sendError(reply, invalidInput(query.error));
    return route.handler({ request, reply, caller, params: params.data, query: query.data });
  };
}

/** The Fastify form of a document path: `{exportId}` becomes `:exportId`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/**
 * Routes served as one plugin (after whatever else their scope needs first, such as a body parser)
 * with the OpenAPI `paths` of those `documented` (all of them unless it says).
 */
export function routeModule(
  routes: Route[],
  setup?: (app: FastifyInstance) => void | Promise<void>,
  documented = routes,
): RouteModule {
  const paths: OpenApiPaths = {};
  for (const route of documented) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) };
  }
  const plugin: FastifyPluginAsync<RouteModuleOptions> = async (app, { authenticate, limit }) => {
    await setup?.(app);
    for (const route of routes) {
      if (!authenticate && route.permission !== "public") {
        throw new Error(`${route.method} ${route.path} needs a signed-in caller: register it with \`authenticate\``);
      }
      const routeLimit = limit?.(route.rateLimit ?? "general");
      app.route({
        method: route.method,
        url: fastifyPath(route.path),
        config: { ...route.config, ...routeLimit?.config },
        ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }),
        ...(routeLimit ? { onRequest: routeLimit.onRequest } : {}),
        handler: routeHandler(route, authenticate ?? (async () => null)),
      });
    }
  };
  return { plugin, paths };
}

/** A query parameter read as its first value when it is repeated (`?code=a&code=b` reads `a`). */
export function firstValue<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (Array.isArray(value) ? value[0] : value), schema);
}
