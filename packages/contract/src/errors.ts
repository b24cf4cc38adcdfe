import { TRPCError } from "@trpc/server";

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
