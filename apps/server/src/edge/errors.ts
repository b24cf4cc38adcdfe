import { type ErrorAnswer, errorAnswer, errorBody, retryAfterOf } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import type { FastifyReply } from "fastify";

const unavailableCodes = new Set([
  "57014", // query_canceled: the statement timeout of the service's connections
  "40P01", // deadlock_detected: one of two transactions waiting on each other was rolled back
  "40001", // serialization_failure
  "57P01", // admin_shutdown (pg_terminate_backend)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
  "08000",
  "08003",
  "08006",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
]);

const unavailableMessages =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection|cached plan must not change result type/i;

/**
 * True when an error (or its cause chain) says the database cannot answer now: the connection was
 * lost or refused, a statement ran past the statement timeout, no pooled connection came free
 * within the pool timeout, the database rolled the transaction back for a conflict (a deadlock), or
 * refused a named read that a migration run by a newer process made stale: the same request sent
 * again can succeed (503 with `Retry-After`).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return false;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && unavailableCodes.has(code)) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === "string" && unavailableMessages.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A failure of the infrastructure as the contract's typed error: a database that cannot answer now
 * is a 503 (`SERVICE_UNAVAILABLE`, with `Retry-After`). Procedures get it in their context.
 */
export function classifyFailure(cause: unknown): TRPCError | undefined {
  if (!isDatabaseUnavailable(cause)) return undefined;
  return new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "Service temporarily unavailable", cause });
}

/** Texts for the statuses Fastify answers on its own. */
const frameworkMessages: Record<number, string> = {
  413: "Request body is larger than 1 MiB",
  415: "Unsupported content type: send application/json",
};

/**
 * What any error is answered with: the typed errors of procedures and services, errors that carry
 * an HTTP status (Fastify's, sign-in's), and database outages (503).
 */
export function describeError(error: unknown): ErrorAnswer {
  if (error instanceof TRPCError) {
    if (error.code !== "INTERNAL_SERVER_ERROR") return errorAnswer(error);
    return errorAnswer(classifyFailure(error.cause ?? error) ?? error);
  }
  const classified = classifyFailure(error);
  if (classified) return errorAnswer(classified);
  const withStatus = error as { statusCode?: unknown; status?: unknown; message?: unknown } | null;
  const given = typeof withStatus?.statusCode === "number" ? withStatus.statusCode : withStatus?.status;
  const status = typeof given === "number" && given >= 400 && given < 600 ? given : 500;
  // Fastify's own errors get the service's words; an error of ours keeps its message.
  const own =
    typeof withStatus?.message === "string" && !String((error as { code?: unknown }).code ?? "").startsWith("FST_");
  const message =
    (own ? undefined : frameworkMessages[status]) ??
    (typeof withStatus?.message === "string" ? withStatus.message : "Error");
  return { status, body: errorBody(status, message), issues: undefined, retryAfter: retryAfterOf(error) };
}

/**
 * The one way an error is answered, on every route: the status, `Retry-After` when the error says
 * when to try again, and the body of `errorBody`.
 */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const { status, body, retryAfter } = describeError(error);
  if (retryAfter !== undefined) reply.header("retry-after", String(retryAfter));
  return reply.code(status).send(body);
}

/** An error that answers with a status of its own (not one of the contract's typed errors). */
export function httpError(status: number, message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode: status });
}
