import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { ErrorBody, ErrorIssue } from "./schemas/errors.js";

/**
 * The typed errors procedures and services throw. The server turns each into the service's
 * error body in one place; the fixed messages of the 401 and the role-permission 403 are here.
 */
export const messages = {
  unauthorized: "Unauthorized",
  noPermission: "Do not have permission",
  accessDenied: "Access denied",
} as const;

export const unauthorized = () => new TRPCError({ code: "UNAUTHORIZED", message: messages.unauthorized });
export const noPermission = () => new TRPCError({ code: "FORBIDDEN", message: messages.noPermission });
export const accessDenied = () => new TRPCError({ code: "FORBIDDEN", message: messages.accessDenied });
export const notFound = (message: string) => new TRPCError({ code: "NOT_FOUND", message });
export const conflict = (message: string) => new TRPCError({ code: "CONFLICT", message });
export const badRequest = (message: string) => new TRPCError({ code: "BAD_REQUEST", message });
export const unprocessable = (message: string) => new TRPCError({ code: "UNPROCESSABLE_CONTENT", message });
export const badGateway = (message: string) => new TRPCError({ code: "BAD_GATEWAY", message });

/** The cause of an error that tells the client when to try again: the server sends it as `Retry-After`. */
export class RetryAfter extends Error {
  override name = "RetryAfter";
  constructor(readonly seconds: number) {
    super(`Try again in ${seconds} s`);
  }
}

/** 429: the caller has too much work queued; `Retry-After` says when a slot is likely free. */
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new TRPCError({ code: "TOO_MANY_REQUESTS", message, cause: new RetryAfter(retryAfterSeconds) });

/** 503: the service has more of some work waiting than it takes; `Retry-After` says when to try again. */
export const serviceBusy = (message: string, retryAfterSeconds: number) =>
  new TRPCError({ code: "SERVICE_UNAVAILABLE", message, cause: new RetryAfter(retryAfterSeconds) });

/** The whole seconds an error (or its cause) asks the client to wait, if it says. */
export function retryAfterOf(error: unknown): number | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof RetryAfter) return Math.max(1, Math.ceil(current.seconds));
    current = current.cause;
  }
  return undefined;
}

/** The error code the REST bodies and the typed client name for an HTTP status. */
export const errorCodeByStatus = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
} as const;

export type ErrorCode = (typeof errorCodeByStatus)[keyof typeof errorCodeByStatus];

export function codeForStatus(status: number): ErrorCode {
  return (
    (errorCodeByStatus as Record<number, ErrorCode>)[status] ??
    (status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST")
  );
}

/**
 * The body the service answers for a failed call, the same on REST and /trpc:
 * `{ error: { message, code, issues? } }`, or `{ message }` for the 401 and the role-permission 403.
 */
export type ErrorResponseBody = ErrorBody | { message: string };

/** The JSON issues of a validation error's cause (zod's `issues`), as `{ path, message }`. */
export function issuesOf(cause: unknown): ErrorIssue[] | undefined {
  const issues = (cause as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((issue: { path?: PropertyKey[]; message?: string }) => ({
    path: (issue.path ?? []).map(String).join("."),
    message: issue.message ?? "Invalid value",
  }));
}

/**
 * The one place an error becomes a response body: 401 and the role-permission 403 are
 * `{ message }`; everything else is `{ error: { message, code, issues? } }`. Server-side failures
 * never carry their cause.
 */
export function errorBody(status: number, message: string, issues?: ErrorIssue[]): ErrorResponseBody {
  if (status === 401) return { message: messages.unauthorized };
  if (status === 403 && message === messages.noPermission) return { message: messages.noPermission };
  const code = codeForStatus(status);
  if (status === 500) return { error: { message: "Internal server error", code } };
  if (status === 503) message = "Service temporarily unavailable, try again shortly";
  const first = issues?.[0];
  if (!first) return { error: { message, code } };
  return {
    error: { message: `Invalid input: ${first.path ? `${first.path}: ` : ""}${first.message}`, code, issues },
  };
}

export interface ErrorAnswer {
  status: number;
  body: ErrorResponseBody;
  issues: ErrorIssue[] | undefined;
  /** Seconds the client should wait before trying again (`Retry-After`), when the error says. */
  retryAfter: number | undefined;
}

/** Seconds a 503 asks the client to wait when its error names no wait of its own. */
export const RETRY_AFTER_SECONDS = 1;

/** What a typed error is answered with: its HTTP status, its body and its `Retry-After`. */
export function errorAnswer(error: TRPCError): ErrorAnswer {
  const status = getHTTPStatusCodeFromError(error);
  const issues = error.code === "BAD_REQUEST" ? issuesOf(error.cause) : undefined;
  const retryAfter = retryAfterOf(error) ?? (status === 503 ? RETRY_AFTER_SECONDS : undefined);
  return { status, body: errorBody(status, error.message, issues), issues, retryAfter };
}
