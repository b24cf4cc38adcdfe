import { codeForStatus, type ErrorResponseBody, messages, retryAfterOf } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { FastifyReply } from "fastify";

export interface ErrorIssue {
  path: string;
  message: string;
}

export interface ErrorDescription {
  status: number;
  message: string;
  code?: string | undefined;
  issues?: ErrorIssue[] | undefined;
}

/**
 * The one place an error becomes a response body: 401 and the role-permission 403 are
 * `{ message }`; everything else is
 * `{ error: { message, code, issues? } }`. Server-side failures never carry their cause.
 */
export function errorBody(error: ErrorDescription): ErrorResponseBody {
  if (error.status === 401) return { message: messages.unauthorized };
  if (error.status === 403 && error.message === messages.noPermission) return { message: messages.noPermission };
  const code = error.code ?? codeForStatus(error.status);
  let message = error.message;
  if (error.status === 500) message = "Internal server error";
  if (error.status === 503) message = "Service temporarily unavailable, try again shortly";
  if (error.issues && error.issues.length > 0) {
    const first = error.issues[0];
    message = first ? `Invalid input: ${first.path ? `${first.path}: ` : ""}${first.message}` : message;
    return { error: { message, code, issues: error.issues } };
  }
  return { error: { message, code } };
}

/** Seconds a 503 asks the client to wait before retrying (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

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

/**
 * True when an error (or its cause chain) says the database cannot answer now: the connection was
 * lost or refused, a statement ran past the statement timeout, no pooled connection came free
 * within the pool timeout, the database rolled the transaction back for a conflict (a deadlock), or
 * refused a prepared statement a migration made stale (see db/prepared-statements.ts):
 * the same request sent again can succeed (503 with `Retry-After`).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return false;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && unavailableCodes.has(code)) return true;
    const message = (current as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection|cached plan must not change result type/i.test(
        message,
      )
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The JSON issues of a validation error's cause (zod's `issues`), as `{ path, message }`. */
function issuesOf(cause: unknown): ErrorIssue[] | undefined {
  const issues = (cause as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((issue: { path?: PropertyKey[]; message?: string }) => ({
    path: (issue.path ?? []).map(String).join("."),
    message: issue.message ?? "Invalid value",
  }));
}

/** Texts for the statuses Fastify answers on its own. */
const frameworkMessages: Record<number, string> = {
  413: "Request body is larger than 1 MiB",
  415: "Unsupported content type: send application/json",
};

/** What any error means for the response: the typed errors of procedures and services, errors that carry an HTTP status (Fastify's, sign-in's), and database outages (503). */
export function describeError(error: unknown): ErrorDescription & { retryAfter?: number } {
  let status: number;
  let message: string;
  let issues: ErrorIssue[] | undefined;
  let cause: unknown = error;
  if (error instanceof TRPCError) {
    status = getHTTPStatusCodeFromError(error);
    message = error.message;
    if (error.code === "BAD_REQUEST") issues = issuesOf(error.cause);
    cause = error.cause ?? error;
  } else {
    const withStatus = error as { statusCode?: unknown; status?: unknown; message?: unknown } | null;
    const given = typeof withStatus?.statusCode === "number" ? withStatus.statusCode : withStatus?.status;
    status = typeof given === "number" && given >= 400 && given < 600 ? given : 500;
    message = frameworkMessages[status] ?? (typeof withStatus?.message === "string" ? withStatus.message : "Error");
  }
  if (status === 500 && isDatabaseUnavailable(cause)) status = 503;
  const retryAfter = retryAfterOf(error) ?? (status === 503 ? RETRY_AFTER_SECONDS : undefined);
  return { status, message, code: codeForStatus(status), issues, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

/**
 * The one way an error is answered, on every route: the status, `Retry-After` when the error says
 * when to try again, and the body of `errorBody`.
 */
export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const description = describeError(error);
  if (description.retryAfter !== undefined) reply.header("retry-after", String(description.retryAfter));
  return reply.code(description.status).send(errorBody(description));
}

/** The status and body any error is answered with: what `sendError` sends, what a /trpc error carries. */
export function answerOf(error: unknown): { status: number; body: ErrorResponseBody } {
  const description = describeError(error);
  return { status: description.status, body: errorBody(description) };
}

/** An error that answers with a status of its own (not one of the contract's typed errors). */
export function httpError(status: number, message: string): Error & { statusCode: number } {
  return Object.assign(new Error(message), { statusCode: status });
}
