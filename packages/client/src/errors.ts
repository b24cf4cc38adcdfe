import { codeForStatus, type ErrorCode, type ErrorResponseBody, errorBody } from "@modpack/contract";
import { isTRPCClientError } from "@trpc/client";

/** One invalid input field: `path` is dotted (`metadata.discord`), empty for the input as a whole. */
export interface ApiIssue {
  path: string;
  message: string;
}

/** The codes the service answers with, plus `NETWORK_ERROR` when no answer came at all. */
export type ApiErrorCode = ErrorCode | "NETWORK_ERROR";

/**
 * An error as the front-end handles it, the same whether it came through this client or the
 * REST API (`{ error: { message, code, issues? } }`, 401 `{ message: "Unauthorized" }`, 403
 * `{ message: "Do not have permission" }`): `status` is the HTTP status (0 when the request
 * never got an answer), `message` the service's own ("Unauthorized", "Do not have permission",
 * "Access denied", ...).
 */
export interface ApiError {
  status: number;
  message: string;
  code: ApiErrorCode | (string & {});
  issues?: ApiIssue[];
}

interface ErrorData {
  httpStatus?: unknown;
  issues?: unknown;
  /** The service's error body, the same as the REST API answers. */
  body?: unknown;
}

function issuesOf(value: unknown): ApiIssue[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const issues = value.flatMap((issue: unknown) => {
    if (typeof issue !== "object" || issue === null) return [];
    const { path, message } = issue as { path?: unknown; message?: unknown };
    return [{ path: typeof path === "string" ? path : "", message: typeof message === "string" ? message : "" }];
  });
  return issues.length > 0 ? issues : undefined;
}

/** A failed answer that is not tRPC's: the service's REST-shaped error (a refused cross-site write, a body too large) or a proxy's page. */
class UnexpectedResponseError extends Error {
  constructor(readonly apiError: ApiError) {
    super(apiError.message);
    this.name = "UnexpectedResponseError";
  }
}

/**
 * Lets an answer through when it succeeded or carries tRPC's error shape; otherwise throws what it
 * says as an {@link ApiError}: the service's `{ error: { message, code, issues? } }` or
 * `{ message }`, or for anything else (a proxy's HTML page) its status alone.
 */
export async function checkResponse<T extends Response>(response: T): Promise<T> {
  if (response.ok) return response;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  if (Array.isArray(body)) return response;
  const inner = (body as { error?: { code?: unknown } } | undefined)?.error;
  if (typeof inner?.code === "number") return response;
  throw new UnexpectedResponseError(
    fromErrorBody(
      response.status,
      body,
      `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`,
    ),
  );
}

/**
 * Reads the service's error body, the same on REST and /trpc (where it is the error's
 * `data.body`): `{ error: { message, code, issues? } }`, or `{ message }` for the 401 and the
 * role-permission 403. Anything else (a proxy's page) gives the status alone, with `fallback` as its message.
 */
export function fromErrorBody(
  status: number,
  body: ErrorResponseBody | unknown,
  fallback = `HTTP ${status}`,
): ApiError {
  const outer = typeof body === "object" && body !== null ? (body as { error?: unknown; message?: unknown }) : {};
  const inner = typeof outer.error === "object" && outer.error !== null ? (outer.error as Record<string, unknown>) : {};
  const message =
    (typeof inner.message === "string" && inner.message) ||
    (typeof outer.message === "string" && outer.message) ||
    fallback;
  const code = typeof inner.code === "string" ? inner.code : codeForStatus(status);
  const issues = issuesOf(inner.issues);
  return issues ? { status, code, message, issues } : { status, code, message };
}

/**
 * Turns whatever a client call threw into an {@link ApiError}: the service's answer (status,
 * code, message, input issues), `{ status: 0, code: "NETWORK_ERROR" }` when no answer came, and
 * `{ status: 500, code: "INTERNAL_SERVER_ERROR" }` for anything else. An `ApiError` is returned as it is.
 */
export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  if (isTRPCClientError(error)) {
    const data = (error.data ?? undefined) as ErrorData | undefined;
    if (data && typeof data.httpStatus === "number") {
      const status = data.httpStatus;
      // Without the service's body (an older server's answer), the body it stands for is made here.
      const body = data.body ?? errorBody(status, error.message, status === 400 ? issuesOf(data.issues) : undefined);
      return fromErrorBody(status, body, error.message);
    }
    if (error.cause instanceof UnexpectedResponseError) return error.cause.apiError;
    return { status: 0, code: "NETWORK_ERROR", message: error.cause?.message || error.message || "Network error" };
  }
  const message = error instanceof Error && error.message ? error.message : "Internal server error";
  return { status: 500, code: "INTERNAL_SERVER_ERROR", message };
}

/** True for an {@link ApiError} (as {@link toApiError} returns), and when `code` is given, one with that code. */
export function isApiError(error: unknown, code?: ApiErrorCode | (string & {})): error is ApiError {
  if (typeof error !== "object" || error === null || error instanceof Error) return false;
  const candidate = error as Partial<ApiError>;
  if (typeof candidate.status !== "number" || typeof candidate.message !== "string") return false;
  if (typeof candidate.code !== "string") return false;
  return code === undefined || candidate.code === code;
}
