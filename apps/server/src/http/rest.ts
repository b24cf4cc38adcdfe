import {
  appRouter,
  badRequest,
  type Caller,
  type Context,
  createCallerFactory,
  type Meta,
  noPermission,
  type Operation,
  operations,
  roleHasPermission,
  type Services,
  unauthorized,
  uuid,
} from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { classifyFailure, describeError, sendError } from "../edge/errors.js";
import { type Authenticate, fastifyPath } from "../edge/routes.js";
import { contentTag, matches, type ReadValidators, setCacheHeaders, versionTag } from "./caching.js";
import type { RateLimits } from "./rate-limit.js";

export interface ProcedureDependencies {
  services: Services;
  authenticate: Authenticate;
  readValidators: ReadValidators;
  rateLimits: RateLimits;
}

const createCaller = createCallerFactory(appRouter);

/** A procedure's context for one request: who calls, the services, and where the call writes its response. */
export function contextOf(services: Services, request: FastifyRequest, caller: Caller | null): Context {
  return { caller, services, requestId: request.id, response: {}, classifyFailure };
}

/** Calls the procedure at `path` (`["modpacks", "get"]`) through tRPC's caller, with its raw input. */
function call(ctx: Context, path: readonly string[], input: unknown): Promise<unknown> {
  const procedure = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], createCaller(ctx));
  return (procedure as (input: unknown) => Promise<unknown>)(input);
}

/** A failure the caller cannot be blamed for is logged: a database outage as a warning, anything else as an error. */
export function logFailure(request: FastifyRequest, error: unknown): void {
  const status = describeError(error).status;
  if (status < 500) return;
  const cause = error instanceof TRPCError ? (error.cause ?? error) : error;
  if (status === 503) request.log.warn({ err: cause }, "database unavailable");
  else request.log.error({ err: cause }, "procedure failed");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The raw input of a REST call, as the procedure parses it: the query (a GET or DELETE) or the JSON
 * body (a write), with the path's parameters; values keep their JSON types. An empty query value
 * is no value.
 */
function inputOf(request: FastifyRequest, operation: Operation): unknown {
  if (!operation.takesInput) return undefined;
  const params = request.params as Record<string, string>;
  if (request.method === "GET" || request.method === "DELETE") {
    const query = Object.entries(request.query as Record<string, unknown>).filter(([, value]) => value !== "");
    return { ...Object.fromEntries(query), ...params };
  }
  const contentType = request.headers["content-type"];
  if (contentType !== undefined && !contentType.startsWith("application/json")) {
    throw new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: `Unsupported content-type "${contentType}"` });
  }
  const body: unknown = request.body === undefined ? {} : request.body;
  if (!isObject(body)) throw badRequest("The request body must be a JSON object");
  return { ...body, ...params };
}

/** The ETag of a read whose validator answers before it runs: 304 when `If-None-Match` names it. */
async function notModified(
  deps: ProcedureDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  meta: Meta,
  caller: Caller | null,
): Promise<boolean> {
  const ifNoneMatch = request.headers["if-none-match"];
  const rule = meta.cache;
  const id = (request.params as { id?: string }).id;
  if (!ifNoneMatch || !rule?.validator || id === undefined || !uuid.safeParse(id).success) return false;
  const version = await (rule.validator === "mod"
    ? deps.readValidators.mod(id)
    : deps.readValidators.modpack(caller, id, meta.modpackAccess ?? "read")
  ).catch(() => undefined);
  if (version === undefined) return false;
  const etag = versionTag(version, request.url);
  if (!matches(ifNoneMatch, etag)) return false;
  setCacheHeaders(request, reply, rule, etag);
  return true;
}

/**
 * Registers one Fastify route per REST operation of the contract, from the procedure's meta: its
 * method and path, its rate limit and its cache rule. Each route authenticates the caller, checks
 * the role permission, and calls the procedure with the request's input; the procedure answers the
 * resource rule (404/403) before it validates the input (400). Every failure is answered by
 * `sendError`; a success with the procedure's status and JSON, with an ETag on cacheable reads.
 */
export async function mountRest(app: FastifyInstance, deps: ProcedureDependencies): Promise<void> {
  for (const operation of operations()) {
    const { meta } = operation;
    if (!meta.openapi || operation.type === "subscription") continue;
    const limit = deps.rateLimits.route(meta.rateLimit ?? "general");
    const path = operation.name.split(".");
    app.route({
      method: meta.openapi.method,
      url: fastifyPath(meta.openapi.path),
      ...(limit ? { config: limit.config, onRequest: limit.onRequest } : {}),
      handler: async (request, reply) => {
        try {
          const input = inputOf(request, operation);
          const caller = await deps.authenticate(request, reply);
          if (meta.openapi?.protect) {
            if (!caller) throw unauthorized();
            if (meta.permission && !roleHasPermission(caller.role, meta.permission)) throw noPermission();
          }
          if (request.method === "GET" && (await notModified(deps, request, reply, meta, caller))) {
            return reply.code(304).send();
          }
          const ctx = contextOf(deps.services, request, caller);
          const data = await call(ctx, path, input);
          const status = ctx.response.status ?? meta.successStatus ?? 200;
          const body: string | undefined = JSON.stringify(data);
          if (meta.cache && request.method === "GET" && status === 200) {
            const etag = ctx.response.version ? versionTag(ctx.response.version, request.url) : contentTag(body);
            setCacheHeaders(request, reply, meta.cache, etag);
            if (matches(request.headers["if-none-match"], etag)) return reply.code(304).send();
          }
          return reply.code(status).type("application/json").send(body);
        } catch (error) {
          logFailure(request, error);
          return sendError(reply, error);
        }
      },
    });
  }
}
