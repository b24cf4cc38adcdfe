import {
  admit,
  appRouter,
  authorizeModpackInput,
  badRequest,
  type Caller,
  type CallResponse,
  type Context,
  createCallerFactory,
  type ModpackAccess,
  type Operation,
  operations,
  type PortOfProcedure,
  portArguments,
  procedureAdmission,
  type Services,
  uuid,
} from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import type { FastifyInstance, FastifyRequest } from "fastify";
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

/** The context of a REST call whose route decided the caller's admission and the modpack's rule. */
function decidedContext(services: Services, request: FastifyRequest, caller: Caller | null, access?: ModpackAccess) {
  return { ...contextOf(services, request, caller), decided: access ? { access } : {} };
}

/** Calls the procedure at `path` (`["modpacks", "get"]`) through tRPC's caller, with its raw input. */
function call(ctx: Context, path: readonly string[], input: unknown): Promise<unknown> {
  const procedure = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], createCaller(ctx));
  return (procedure as (input: unknown) => Promise<unknown>)(input);
}

/** A port read's input parsed by the port's schema, whose refusal is the 400 tRPC's parser would answer. */
function portInput(port: PortOfProcedure, raw: unknown): unknown {
  const schema = port.declaration.input;
  if (!schema) return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", message: "Invalid input", cause: parsed.error });
  return parsed.data;
}

/**
 * A read whose procedure is its port's call (ports.ts `call`), called without tRPC's caller: the port
 * of the service with the caller and the modpack the route decided and the input `portInput` parsed.
 * Its answer is the port's, whose type the contract's output schema gives; the answer a service
 * builds is not checked again at run time (a `/trpc` call still is).
 */
function readPort(
  services: Services,
  port: PortOfProcedure,
  caller: Caller | null,
  access: ModpackAccess | undefined,
  input: unknown,
): Promise<unknown> {
  const { declaration } = port;
  const resource = (services as unknown as Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>)[
    port.resource
  ];
  return resource![port.name]!(...portArguments(declaration, caller, access, input));
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

/**
 * The version of what a cacheable read will answer, known before it runs: the modpack's from its
 * resource rule, a mod's from one indexed lookup; undefined when the read must run to tell.
 */
async function versionBefore(
  deps: ProcedureDependencies,
  request: FastifyRequest,
  validator: "modpack" | "mod" | undefined,
  access: ModpackAccess | undefined,
): Promise<string | undefined> {
  if (validator === "modpack") return access?.version;
  const id = (request.params as { id?: string }).id;
  if (validator !== "mod" || id === undefined || !uuid.safeParse(id).success) return undefined;
  return deps.readValidators.mod(id).catch(() => undefined);
}

/**
 * Registers one Fastify route per REST operation of the contract, from the procedure's meta: its
 * method and path, its rate limit and its cache rule. Each route decides, once, everything that
 * comes before the procedure's own work: the caller and their admission (401/403), the modpack's
 * resource rule (404/403) before the input is validated (400), and, on a cacheable read whose
 * version is known first, the `304`. The procedure takes those decisions from its context. Every
 * failure is answered by `sendError`; a success with the procedure's status and JSON, with an ETag
 * on cacheable reads.
 */
export async function mountRest(app: FastifyInstance, deps: ProcedureDependencies): Promise<void> {
  for (const operation of operations()) {
    const { meta } = operation;
    if (!meta.openapi || operation.type === "subscription") continue;
    const limit = deps.rateLimits.route(meta.rateLimit ?? "general");
    const path = operation.name.split(".");
    const port = operation.type === "query" ? meta.port : undefined;
    // Who may call is the operation's, the same for every request: decided from its meta once.
    const admission = procedureAdmission(meta, operation.type, meta.openapi.protect === true);
    app.route({
      method: meta.openapi.method,
      url: fastifyPath(meta.openapi.path),
      ...(limit ? { config: limit.config, onRequest: limit.onRequest } : {}),
      handler: async (request, reply) => {
        try {
          const input = inputOf(request, operation);
          const caller = admit(await deps.authenticate(request, reply), admission);
          const rule = meta.cache;
          const revalidates = request.method === "GET" && rule !== undefined && !!request.headers["if-none-match"];
          // A revalidation is most often a 304: its rule's statement reads the modpack's row alone, and
          // a read that still has to answer reads the rest after it.
          const access = meta.modpackAccess
            ? await authorizeModpackInput(deps.services, caller, meta, input ?? request.params, {
                members: meta.modpackMembers === true && !revalidates,
              })
            : undefined;
          // A read's input is refused (400) before a 304 could answer for it.
          const parsed = port ? portInput(port, input) : undefined;
          if (revalidates && rule) {
            const version = await versionBefore(deps, request, rule.validator, access);
            const etag = version === undefined ? undefined : versionTag(version, request.url);
            if (etag && matches(request.headers["if-none-match"], etag)) {
              setCacheHeaders(request, reply, rule, etag);
              return reply.code(304).send();
            }
          }
          let data: unknown;
          let response: CallResponse = {};
          if (port) {
            data = await readPort(deps.services, port, caller, access, parsed);
            // What a procedure on one modpack answers is that version of the modpack.
            if (access) response.version = access.version;
          } else {
            const ctx = decidedContext(deps.services, request, caller, access);
            data = await call(ctx, path, input);
            response = ctx.response;
          }
          const status = response.status ?? meta.successStatus ?? 200;
          const body: string | undefined = JSON.stringify(data);
          if (meta.cache && request.method === "GET" && status === 200) {
            const etag = response.version ? versionTag(response.version, request.url) : contentTag(body);
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
