import { randomUUID } from "node:crypto";
import fastifyCookie from "@fastify/cookie";
import fastifyCors from "@fastify/cors";
import { appRouter, type Context, declaredStatus, procedureMeta, type Services } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { fastifyTRPCOpenApiPlugin, type OpenAPIObject } from "trpc-to-openapi";
import type { Config } from "../config.js";
import { describeError, httpError, isDatabaseUnavailable, prepareError, sendError } from "../edge/errors.js";
import { redactedLogPaths, serializeRequest } from "../edge/log-redaction.js";
import { type Authenticate, type OpenApiPaths, type RouteModule, SESSION_COOKIE } from "../edge/routes.js";
import { type ReadValidators, registerHttpCaching } from "./caching.js";
import { bodyContainsNul, containsNul, type JsonBodyError, parseJsonBody } from "./json-body.js";
import { buildOpenApiDocument } from "./openapi.js";
import { registerRateLimits } from "./rate-limit.js";
import { trpcResponseMeta } from "./retry-after.js";

export const BODY_LIMIT = 1024 * 1024;

export interface AppDependencies {
  config: Config;
  services: Services;
  authenticate: Authenticate;
  /** The lookups that answer If-None-Match on the versioned reads before they run. */
  readValidators: ReadValidators;
  routes?: RouteModule[];
  logger?: FastifyBaseLogger;
  /** Called when closing starts, before in-flight requests are waited for (to end long-lived streams). */
  onPreClose?: () => Promise<void>;
  /** Called once the app has stopped accepting requests and finished the ones in flight. */
  onClose?: () => Promise<void>;
}

declare module "fastify" {
  interface FastifyRequest {
    restError?: TRPCError;
  }
  interface FastifyContextConfig {
    /** A stream that lives until the client leaves or the server closes; shutdown does not wait for it. */
    longLived?: boolean;
  }
}

/** How long closing waits for handlers still running (their clients may have left already). */
const DRAIN_TIMEOUT_MS = 15_000;

const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Builds the HTTP application: CORS, cookies, the contract's procedures as REST paths at the
 * root and as native tRPC under `/trpc`, the plain routes, `/openapi.json`, and `/docs`.
 */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    ...(deps.logger
      ? { loggerInstance: deps.logger }
      : {
          logger: {
            level: config.logLevel,
            redact: { paths: redactedLogPaths, remove: true },
            serializers: { req: serializeRequest },
          },
        }),
    bodyLimit: BODY_LIMIT,
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    },
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true },
    // A URL the router cannot decode (e.g. `%ED%BF%BF`) is answered here, not by the error handler.
    frameworkErrors: (error, _request, reply) => {
      sendError(
        reply as FastifyReply,
        httpError(error.statusCode && error.statusCode >= 400 ? error.statusCode : 400, error.message),
      );
    },
  });

  const allowedOrigins = new Set([new URL(config.publicUrl).origin, ...config.originsAllowed]);
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  // Handlers in flight, until their reply is sent. A client that leaves early does not stop its
  // handler, and Fastify stops waiting for it: closing waits here before the database goes away.
  const inFlight = new Set<FastifyRequest>();
  let drained: (() => void) | undefined;
  const settle = (request: FastifyRequest) => {
    inFlight.delete(request);
    if (inFlight.size === 0) drained?.();
  };
  app.addHook("onRequest", async (request) => {
    if (!request.routeOptions.config.longLived) inFlight.add(request);
  });
  app.addHook("onSend", async (request, _reply, payload) => {
    settle(request);
    return payload;
  });
  app.addHook("onResponse", async (request) => settle(request));
  const drain = async () => {
    if (inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        drained = resolve;
      }),
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          app.log.warn({ pending: inFlight.size }, "closing with handlers still running");
          resolve();
        }, DRAIN_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
  };

  // Cross-site request forgery: a cookie-authenticated write from a foreign origin is refused.
  app.addHook("onRequest", async (request, reply) => {
    if (!bodyMethods.has(request.method)) return;
    const origin = request.headers.origin;
    if (!origin || allowedOrigins.has(origin)) return;
    if (request.headers.authorization?.toLowerCase().startsWith("bearer ")) return;
    if (!request.headers.cookie?.includes(`${SESSION_COOKIE}=`)) return;
    return sendError(reply, httpError(403, `Cross-site request from ${origin} refused`));
  });

  // Postgres text cannot hold NUL: a request carrying one is refused before any procedure runs.
  app.addHook("preValidation", async (request, reply) => {
    if (!containsNul(request.params) && !containsNul(request.query) && !bodyContainsNul(request.body)) return;
    return sendError(reply, httpError(400, "Text must not contain the NUL character (\\u0000)"));
  });

  // Bodies: JSON only; an empty body is no body, so a body-less DELETE or POST needs no headers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, parseJsonBody(text));
    } catch (error) {
      done(error as JsonBodyError, undefined);
    }
  });

  await app.register(fastifyCookie);
  await registerRateLimits(app, { limits: config.limits, authenticate: deps.authenticate });
  await app.register(fastifyCors, {
    origin: (origin, callback) => callback(null, origin === undefined || allowedOrigins.has(origin)),
    credentials: true,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowedHeaders: ["Content-Type", "Authorization"],
    exposedHeaders: [
      "Content-Disposition",
      "X-Request-Id",
      "Retry-After",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ],
    maxAge: 600,
    strictPreflight: false,
  });

  app.setErrorHandler((error, request, reply) => {
    if (describeError(error).status >= 500) request.log.error({ err: error }, "request failed");
    return sendError(reply, error);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, httpError(404, `Route ${request.method} ${request.url.split("?")[0]} not found`)),
  );

  const createContext = async ({ req, res }: { req: FastifyRequest; res: FastifyReply }): Promise<Context> => ({
    caller: await deps.authenticate(req, res),
    services: deps.services,
    requestId: req.id,
  });

  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: appRouter,
      createContext,
      responseMeta: trpcResponseMeta,
      onError({ error, req }) {
        if (error.code === "INTERNAL_SERVER_ERROR") req.log.error({ err: error.cause ?? error }, "procedure failed");
      },
    } satisfies FastifyTRPCPluginOptions<typeof appRouter>["trpcOptions"],
  });

  const extraPaths: OpenApiPaths = {};
  for (const module of deps.routes ?? []) {
    await app.register(module.plugin);
    Object.assign(extraPaths, module.paths);
  }

  let document: OpenAPIObject | undefined;
  const openApiDocument = () => {
    document ??= buildOpenApiDocument({ publicUrl: config.publicUrl, extraPaths: { ...extraPaths, ...docsPaths } });
    return document;
  };
  app.get("/openapi.json", async () => openApiDocument());
  // Where a browser lands after signing in: the docs where they are served, else a short index.
  app.get("/", async (_request, reply) =>
    config.isProduction
      ? { name: "Modpack Collection Service", openapi: "/openapi.json", health: "/health" }
      : reply.redirect("/docs/"),
  );

  if (!config.isProduction) {
    const { lazyScalar: scalar } = await import("./lazy-docs.js");
    await app.register(scalar, {
      routePrefix: "/docs",
      configuration: {
        url: "/openapi.json",
        title: "Modpack Collection Service",
        pageTitle: "Modpack Collection Service API",
        withDefaultFonts: false,
        hideClientButton: false,
        persistAuth: true,
        authentication: { preferredSecurityScheme: "cookieAuth" },
        // Only this API's reference: no AI chat, no MCP, no deploy/share tools, nothing sent elsewhere.
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: "never",
        telemetry: false,
      },
    });
  }

  await app.register(async (rest) => {
    // The REST adapter's handler sends without waiting for the reply (async onSend hooks still
    // running) and resolves; Fastify then saw an unsent reply and sent it again ("Reply was already
    // sent", a logged 500). Its handler now resolves once the reply has gone out.
    rest.addHook("onRoute", (route) => {
      const handler = route.handler;
      route.handler = async function (this: FastifyInstance, request, reply) {
        await handler.call(this, request, reply);
        await reply;
      };
    });
    // A body-less write arrives with no Content-Type; the REST handler treats it as JSON with no body.
    rest.addHook("onRequest", async (request) => {
      if (bodyMethods.has(request.method) && !request.headers["content-type"]) {
        const length = request.headers["content-length"];
        if (length === undefined || length === "0") request.headers["content-type"] = "application/json";
      }
    });
    rest.addHook("onSend", async (request, reply, payload) => {
      const error = request.restError;
      if (!error) return payload;
      return JSON.stringify(prepareError(reply, error));
    });
    registerHttpCaching(rest, { authenticate: deps.authenticate, validators: deps.readValidators });
    await rest.register(fastifyTRPCOpenApiPlugin, {
      basePath: "/",
      router: appRouter,
      createContext,
      maxBodySize: BODY_LIMIT,
      responseMeta({ ctx, paths, errors }: { ctx?: unknown; paths?: readonly string[]; errors: readonly unknown[] }) {
        if (errors.length > 0 || !paths?.[0]) return {};
        // The status the procedure declared for this call (a create finding the thing there), else the operation's.
        const status = declaredStatus(ctx) ?? procedureMeta(paths[0])?.successStatus;
        return status ? { status } : {};
      },
      onError({ error, req }: { error: TRPCError; req: unknown }) {
        const request = req as unknown as FastifyRequest;
        request.restError = error;
        if (error.code === "INTERNAL_SERVER_ERROR") {
          const cause = error.cause ?? error;
          if (isDatabaseUnavailable(cause)) request.log.warn({ err: cause }, "database unavailable");
          else request.log.error({ err: cause }, "procedure failed");
        }
      },
    });
  });

  if (deps.onPreClose) {
    const onPreClose = deps.onPreClose;
    app.addHook("preClose", async () => onPreClose());
  }
  const onClose = deps.onClose;
  app.addHook("onClose", async () => {
    await drain();
    await onClose?.();
  });
  return app;
}

const docsPaths: OpenApiPaths = {
  "/": {
    get: {
      tags: ["Documentation"],
      operationId: "getIndex",
      summary: "Service index",
      description:
        "Where a browser lands after signing in. Outside production it redirects to the interactive reference at `/docs/`; in production it answers the service's name and where its OpenAPI document is. Public.",
      security: [],
      responses: {
        "200": {
          description: "In production: the index",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { name: { type: "string" }, openapi: { type: "string" }, health: { type: "string" } },
              },
            },
          },
        },
        "302": { description: "Outside production: to `/docs/`" },
      },
    },
  },
  "/openapi.json": {
    get: {
      tags: ["Documentation"],
      operationId: "getOpenApiDocument",
      security: [],
      summary: "This OpenAPI document",
      description: "The OpenAPI 3.1 document of every route of the service. Public.",
      responses: {
        "200": { description: "The document", content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  },
  "/docs": {
    get: {
      tags: ["Documentation"],
      operationId: "getDocs",
      security: [],
      summary: "Interactive API reference",
      description:
        "The Scalar reference rendered from `/openapi.json`, where requests can be sent with the session cookie. Served only when `NODE_ENV` is not `production` (404 there). Public.",
      responses: {
        "200": {
          description: "The interactive reference, an HTML page",
          content: {
            "text/html": {
              schema: { type: "string" },
              example: "<!doctype html><html><head><title>Modpack Collection Service API</title></head>…</html>",
            },
          },
        },
        "404": {
          description: "Disabled in production",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    },
  },
};

export { TRPCError };
