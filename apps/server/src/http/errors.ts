import { codeForStatus, messages } from "@modpack/contract";

export { codeForStatus };

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
 * The one place an error becomes a response body (service interface section 7, decisions.md
 * "Errors"): 401 and the role-permission 403 are `{ message }`; everything else is
 * `{ error: { message, code, issues? } }`. Server-side failures never carry their cause.
 */
export function errorBody(error: ErrorDescription): Record<string, unknown> {
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

const unavailableCodes = new Set([
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

/** True when an error (or its cause chain) says the database connection was lost or refused. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== "object") return false;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && unavailableCodes.has(code)) return true;
    const message = (current as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(
        message,
      )
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
