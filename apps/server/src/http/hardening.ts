import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import fastifyCookie from "@fastify/cookie";
import fastifyCors from "@fastify/cors";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import type { Config } from "../config.js";
import { describeError, httpError, sendError } from "../edge/errors.js";
import { type Authenticate, SESSION_COOKIE } from "../edge/routes.js";
import { bodyContainsNul, containsNul, parseJsonBody } from "./json-body.js";
import { type RateLimits, registerRateLimits } from "./rate-limit.js";

export const BODY_LIMIT = 1024 * 1024;

/** How long the rest of an unread body may take to arrive before the answer goes out without it. */
const DRAIN_TIMEOUT_MS = 10_000;

/** Methods that carry a body (and change something). */
export const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The Fastify server's options: the logger, the body limit, request ids, closing and the router. */
export function serverOptions(logger: FastifyBaseLogger): FastifyServerOptions {
  return {
    loggerInstance: logger,
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
  };
}

/**
 * What every request goes through before a route: its id echoed, cross-site writes with the session cookie
 * refused, NUL refused anywhere in the input, JSON-only bodies, cookies, rate limits, CORS, and the
 * error and not-found handlers answering through `sendError`.
 */
export async function harden(app: FastifyInstance, config: Config, authenticate: Authenticate): Promise<RateLimits> {
  const allowedOrigins = new Set([new URL(config.publicUrl).origin, ...config.originsAllowed]);

  // Every request passes the hooks below that decide at once: each takes Fastify's `done` callback
  // rather than being an async function, which would cost a promise and a turn of the microtask queue
  // per hook and request. The unread body's drain (`drainUnreadBodies`) waits, and stays async, so
  // that Fastify's hook runner catches what fails after it.

  // The request id is echoed on every reply, refusals included.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });

  drainUnreadBodies(app);

  // Cross-site request forgery: a cookie-authenticated write from a foreign origin is refused. A path
  // the service does not have is a 404 whatever the request (here and in the checks below).
  // A hook that answers sends its reply and does not call `done`.
  app.addHook("onRequest", (request, reply, done) => {
    const origin = request.headers.origin;
    if (
      bodyMethods.has(request.method) &&
      !request.is404 &&
      origin &&
      !allowedOrigins.has(origin) &&
      !request.headers.authorization?.toLowerCase().startsWith("bearer ") &&
      request.headers.cookie?.includes(`${SESSION_COOKIE}=`)
    ) {
      sendError(reply, httpError(403, `Cross-site request from ${origin} refused`));
      return;
    }
    done();
  });

  // Postgres text cannot hold NUL: a request carrying one is refused before any procedure runs.
  app.addHook("preValidation", (request, reply, done) => {
    if (
      !request.is404 &&
      (containsNul(request.params) || containsNul(request.query) || bodyContainsNul(request.body))
    ) {
      sendError(reply, httpError(400, "Text must not contain the NUL character (\\u0000)"));
      return;
    }
    done();
  });

  // Bodies: JSON only; an empty body is no body, so a body-less DELETE or POST needs no headers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, async (_request: FastifyRequest, body: string) =>
    body.trim() === "" ? undefined : parseJsonBody(body),
  );

  await app.register(fastifyCookie);
  const rateLimits = await registerRateLimits(app, { limits: config.limits, authenticate });
  await app.register(fastifyCors, {
    origin: (origin, callback) => callback(null, origin === undefined || allowedOrigins.has(origin)),
    credentials: true,
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowedHeaders: ["Content-Type", "Authorization"],
    exposedHeaders: [
      "Content-Disposition",
      "ETag",
      "Modpack-Check-Errors",
      "Mods-Added",
      "Mods-Removed",
      "Workshop-Items-Added",
      "Workshop-Items-Removed",
      "Map-Changed",
      "X-Request-Id",
      "Retry-After",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ],
    maxAge: 600,
    strictPreflight: false,
  });

  const notFound = (request: FastifyRequest) =>
    httpError(404, `Route ${request.method} ${request.url.split("?")[0]} not found`);
  app.setErrorHandler((error, request, reply) => {
    // A body the parser refused (too large, not JSON, malformed) on a path the service does not have.
    if (request.is404) return sendError(reply, notFound(request));
    if (describeError(error).status >= 500) request.log.error({ err: error }, "request failed");
    return sendError(reply, error);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)));
  return rateLimits;
}

/**
 * An answer ready before its request's body was read whole (a refusal before the body: too large, not
 * the route's type, no or too weak credentials) waits while the rest is read and discarded, as web
 * servers' lingering close does. A client that sends its body without `Expect: 100-continue` is still
 * writing it: if the connection closed with bytes unread, the kernel would answer them with a reset
 * and the client would see a broken pipe instead of the status. Draining is bounded: a body declared
 * larger than twice the route's limit is not waited for, one of unknown length gets one more limit's
 * worth of bytes, and all of it `timeoutMs`; past a bound the answer goes out at once with
 * `Connection: close`, and Node closes the connection after it.
 */
export function drainUnreadBodies(app: FastifyInstance, { timeoutMs = DRAIN_TIMEOUT_MS } = {}): void {
  app.addHook("onSend", async (request, reply, payload) => {
    const incoming = request.raw;
    // `complete`: Node's parser has read the whole message; `readableEnded`: a reader has (an injected
    // request, which has no socket, reports only this one).
    if (incoming.complete || incoming.readableEnded || incoming.destroyed) return payload;
    const limit = request.routeOptions.bodyLimit;
    const declared = request.headers["content-length"];
    const drained =
      declared === undefined
        ? await drain(incoming, limit, timeoutMs)
        : Number(declared) <= 2 * limit && (await drain(incoming, 2 * limit, timeoutMs));
    if (!drained) reply.header("connection", "close");
    return payload;
  });
}

/** Reads and discards the rest of a request: true once it ended within `maxBytes` and `timeoutMs`. */
function drain(incoming: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let bytes = 0;
    const settle = (drained: boolean) => {
      clearTimeout(timer);
      incoming.off("data", count).off("end", ended).off("close", stopped).off("error", stopped);
      // Past a bound nothing more is taken from the client; the connection closes after the answer.
      if (!drained) incoming.pause();
      resolve(drained);
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) settle(false);
    };
    const ended = () => settle(true);
    const stopped = () => settle(false);
    const timer = setTimeout(stopped, timeoutMs);
    incoming.on("data", count).on("end", ended).on("close", stopped).on("error", stopped);
    incoming.resume();
  });
}
