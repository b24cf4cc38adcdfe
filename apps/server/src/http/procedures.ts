import {
  appRouter,
  type Context,
  declaredStatus,
  procedureMeta,
  type Services,
  setErrorAnswer,
} from "@modpack/contract";
import type { TRPCError } from "@trpc/server";
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { answerOf, isDatabaseUnavailable, sendError } from "../edge/errors.js";
import type { Authenticate } from "../edge/routes.js";
import { type ReadValidators, registerHttpCaching } from "./caching.js";
import { BODY_LIMIT, bodyMethods } from "./hardening.js";
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
  return { caller: await deps.authenticate(req, res), services: deps.services, requestId: req.id };
}

/**
 * The REST status of a procedure's answer: the status the procedure declared for this call (a create
 * that found the thing already there answers 200), else the operation's success status.
 */
function restResponseMeta({
  ctx,
  paths,
  errors,
}: {
  ctx?: unknown;
  paths?: readonly string[];
  errors: readonly unknown[];
}) {
  if (errors.length > 0 || !paths?.[0]) return {};
  const status = declaredStatus(ctx) ?? procedureMeta(paths[0])?.successStatus;
  return status ? { status } : {};
}

/** What trpc-to-openapi answers, held until the route sends it (or `sendError` answers its failure). */
interface HeldResponse {
  reply: FastifyReply;
  statusCode: number;
  headers: Record<string, string>;
  body: string | undefined;
  failure: TRPCError | undefined;
  setHeader(name: string, value: string): void;
  end(body?: string): void;
  once: NodeJS.EventEmitter["once"];
  on: NodeJS.EventEmitter["on"];
  off: NodeJS.EventEmitter["off"];
  readonly writableEnded: boolean;
  readonly headersSent: boolean;
}

/**
 * The contract's procedures as REST paths at the root (trpc-to-openapi). A failure is answered by
 * `sendError`, like every other error; a success with the procedure's status and JSON, cached when
 * it is a cacheable read.
 */
export async function mountRest(app: FastifyInstance, deps: ProcedureDependencies): Promise<void> {
  const held = new WeakMap<FastifyRequest, HeldResponse>();
  const handle = createOpenApiNodeHttpHandler({
    router: appRouter,
    // The request is Fastify's (as the route below hands it over); the response is the held one.
    createContext: ({ req, res }) =>
      contextOf(deps, req as unknown as FastifyRequest, (res as unknown as HeldResponse).reply),
    maxBodySize: BODY_LIMIT,
    responseMeta: restResponseMeta,
    onError({ error, req }) {
      const request = req as unknown as FastifyRequest;
      const response = held.get(request);
      if (response) response.failure = error;
      logFailure(request, error);
    },
  });

  await app.register(async (rest) => {
    // A body-less write arrives with no Content-Type; the REST handler treats it as JSON with no body.
    rest.addHook("onRequest", async (request) => {
      if (bodyMethods.has(request.method) && !request.headers["content-type"]) {
        const length = request.headers["content-length"];
        if (length === undefined || length === "0") request.headers["content-type"] = "application/json";
      }
    });
    registerHttpCaching(rest, { authenticate: deps.authenticate, validators: deps.readValidators });
    rest.route({
      method: ["GET", "POST", "PATCH", "PUT", "DELETE"],
      url: "/*",
      handler: async (request, reply) => {
        const raw = reply.raw;
        // The handler reads a Node request and writes a Node response: the request's own events, and a
        // response that holds what is written (the request's signal aborts when the connection closes).
        const response: HeldResponse = {
          reply,
          statusCode: 200,
          headers: {},
          body: undefined,
          failure: undefined,
          setHeader(name, value) {
            response.headers[name] = value;
          },
          end(body) {
            response.body = body;
          },
          once: raw.once.bind(raw),
          on: raw.on.bind(raw),
          off: raw.off.bind(raw),
          get writableEnded() {
            return raw.writableEnded;
          },
          get headersSent() {
            return raw.headersSent;
          },
        };
        held.set(request, response);
        const nodeRequest = Object.assign(request, {
          once: request.raw.once.bind(request.raw),
          on: request.raw.on.bind(request.raw),
          off: request.raw.off.bind(request.raw),
          destroy: request.raw.destroy.bind(request.raw),
        });
        await handle(nodeRequest as never, response as never);
        if (response.failure) return sendError(reply, response.failure);
        return reply.code(response.statusCode).headers(response.headers).send(response.body);
      },
    });
  });
}
