import {
  appRouter,
  type Context,
  createResponder,
  procedureMeta,
  type Services,
  setErrorAnswer,
} from "@modpack/contract";
import { type AnyProcedure, TRPCError } from "@trpc/server";
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  acceptsRequestBody,
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  type OpenApiMethod,
  type OpenApiProcedureRecord,
  unwrapZodType,
  zodSupportsCoerce,
} from "trpc-to-openapi";
import { ZodArray } from "zod/v4";
import { answerOf, isDatabaseUnavailable, sendError } from "../edge/errors.js";
import type { Authenticate } from "../edge/routes.js";
import { type ReadValidators, registerHttpCaching } from "./caching.js";
import { bodyMethods } from "./hardening.js";
import { trpcResponseMeta } from "./retry-after.js";

export interface ProcedureDependencies {
  services: Services;
  authenticate: Authenticate;
  readValidators: ReadValidators;
}

/** The contract's procedures as native tRPC under `/trpc`. */
export async function mountTrpc(app: FastifyInstance, deps: ProcedureDependencies): Promise<void> {
  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: appRouter,
      createContext: ({ req, res }) => contextOf(deps, req, res),
      responseMeta: trpcResponseMeta,
      onError({ error, req }) {
        const answer = answerOf(error);
        setErrorAnswer(error, answer.status, answer.body);
        logFailure(req, error);
      },
    } satisfies FastifyTRPCPluginOptions<typeof appRouter>["trpcOptions"],
  });
}

/** A procedure's unexpected failure is logged: a database outage as a warning, anything else as an error. */
function logFailure(request: FastifyRequest, error: TRPCError): void {
  if (error.code !== "INTERNAL_SERVER_ERROR") return;
  const cause = error.cause ?? error;
  if (isDatabaseUnavailable(cause)) request.log.warn({ err: cause }, "database unavailable");
  else request.log.error({ err: cause }, "procedure failed");
}

async function contextOf(deps: ProcedureDependencies, req: FastifyRequest, res: FastifyReply): Promise<Context> {
  return {
    caller: await deps.authenticate(req, res),
    services: deps.services,
    requestId: req.id,
    respond: createResponder(),
  };
}

/** A failure as a TRPCError: anything else is an internal error carrying it as its cause (as trpc-to-openapi wraps it). */
function failureOf(cause: unknown): TRPCError {
  if (cause instanceof Error && cause.name === "TRPCError") return cause as TRPCError;
  const error = new TRPCError({
    message: "Internal server error",
    code: "INTERNAL_SERVER_ERROR",
    cause: cause instanceof Error ? cause : undefined,
  });
  if (cause instanceof Error && cause.stack) error.stack = cause.stack;
  return error;
}

/** A REST operation: the procedure behind one OpenAPI method and path, and how its input is read. */
interface RestOperation {
  pattern: RegExp;
  path: string;
  type: "query" | "mutation";
  call: AnyProcedure;
  /** The input is void: no input is read. */
  noInput: boolean;
  /** Query keys whose schema is an array: a single value is wrapped in one. */
  arrayKeys: string[];
}

/**
 * The contract's REST operations by method, in the router's order (the first pattern that matches
 * a path answers it), read as trpc-to-openapi reads them: its path patterns, its input schemas, its
 * coercion switch (applied once here; the contract's strict inputs ignore it).
 */
function restOperations(): Map<string, RestOperation[]> {
  const byMethod = new Map<string, RestOperation[]>();
  forEachOpenApiProcedure(appRouter._def.procedures as OpenApiProcedureRecord, ({ path, procedure, meta }) => {
    const type = procedure._def.type;
    if (type === "subscription") return;
    const { inputParser } = getInputOutputParsers(procedure);
    const unwrapped = unwrapZodType(inputParser, true);
    const arrayKeys: string[] = [];
    if (zodSupportsCoerce && instanceofZodTypeObject(unwrapped)) {
      for (const [key, shape] of Object.entries(unwrapped.shape)) {
        if (shape instanceof ZodArray || (instanceofZodTypeOptional(shape) && shape.unwrap() instanceof ZodArray)) {
          arrayKeys.push(key);
        }
      }
      coerceSchema(unwrapped);
    }
    const operations = byMethod.get(meta.openapi.method) ?? [];
    operations.push({
      pattern: getPathRegExp(normalizePath(meta.openapi.path)),
      path,
      type,
      call: procedure as unknown as AnyProcedure,
      noInput: instanceofZodTypeLikeVoid(unwrapped),
      arrayKeys,
    });
    byMethod.set(meta.openapi.method, operations);
  });
  return byMethod;
}

/** A request path that the WHATWG URL parser would not change (no dot segments, plain or escaped, no backslashes, no characters it escapes). */
const PLAIN_PATH = /^(?:\/[\w\-~%!$&'()*+,;=:@]*)+$/;

/** The path of a request URL as trpc-to-openapi matched it: `new URL`'s pathname, without a trailing slash. */
function requestPath(url: string): string {
  const end = url.indexOf("?");
  const raw = end === -1 ? url : url.slice(0, end);
  const path =
    PLAIN_PATH.test(raw) && !/%2e/i.test(raw)
      ? raw
      : new URL(url.startsWith("/") ? `http://127.0.0.1${url}` : url).pathname;
  return normalizePath(path);
}

/** The first value of each query parameter, arrays of several values kept (as trpc-to-openapi reads the query). */
function queryInput(query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (value) input[key] = Array.isArray(value) && value.length === 1 ? value[0] : value;
  }
  return input;
}

/**
 * The contract's procedures as REST paths at the root, on the paths and inputs of the OpenAPI
 * document (trpc-to-openapi's rules, read once at start-up): one route reads the path's operation,
 * its input from the query or the JSON body and the path, and calls the procedure with the
 * request's context. A failure is answered by `sendError`, like every other error; a success with
 * the procedure's status and JSON, cached when it is a cacheable read.
 */
export async function mountRest(app: FastifyInstance, deps: ProcedureDependencies): Promise<void> {
  const operations = restOperations();

  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const method = request.method;
    const path = requestPath(request.url);
    let operation: RestOperation | undefined;
    let match: RegExpExecArray | null = null;
    for (const candidate of operations.get(method) ?? []) {
      match = candidate.pattern.exec(path);
      if (match) {
        operation = candidate;
        break;
      }
    }
    // Can be used for warm-up, as with trpc-to-openapi.
    if (!operation && method === "HEAD") return reply.code(204).type("application/json").send();
    let ctx: Context | undefined;
    try {
      if (!operation) throw new TRPCError({ message: "Not found", code: "NOT_FOUND" });
      const useBody = acceptsRequestBody(method as OpenApiMethod);
      const contentType = request.headers["content-type"];
      if (useBody && !contentType?.startsWith("application/json")) {
        throw new TRPCError({
          code: "UNSUPPORTED_MEDIA_TYPE",
          message: contentType ? `Unsupported content-type "${contentType}` : "Missing content-type header",
        });
      }
      let input: Record<string, unknown> | undefined;
      if (!operation.noInput) {
        input = {
          ...(useBody
            ? (request.body as Record<string, unknown> | undefined)
            : queryInput(request.query as Record<string, string | string[] | undefined>)),
          ...match?.groups,
        };
        if (!useBody) {
          for (const key of operation.arrayKeys) {
            if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
          }
        }
      }
      ctx = await contextOf(deps, request, reply);
      const data = await operation.call({
        path: operation.path,
        getRawInput: async () => input,
        ctx,
        type: operation.type,
        signal: undefined,
        batchIndex: 0,
      });
      const status = ctx.respond.declared ?? procedureMeta(operation.path)?.successStatus ?? 200;
      const body = JSON.stringify(data);
      return reply
        .code(status)
        .type("application/json")
        .send(body === undefined ? undefined : body);
    } catch (cause) {
      const error = failureOf(cause);
      logFailure(request, error);
      return sendError(reply, error);
    }
  };

  await app.register(async (rest) => {
    // A body-less write arrives with no Content-Type; the REST handler treats it as JSON with no body.
    rest.addHook("onRequest", (request, _reply, done) => {
      if (bodyMethods.has(request.method) && !request.headers["content-type"]) {
        const length = request.headers["content-length"];
        if (length === undefined || length === "0") request.headers["content-type"] = "application/json";
      }
      done();
    });
    registerHttpCaching(rest, { authenticate: deps.authenticate, validators: deps.readValidators });
    rest.route({ method: ["GET", "POST", "PATCH", "PUT", "DELETE"], url: "/*", handler: answer });
  });
}
