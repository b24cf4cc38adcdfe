/** Paths whose query strings carry secrets (authorization codes, state, PKCE values). */
const secretQueryPrefixes = ["/auth/", "/dev-idp/"];

/**
 * A request URL fit for the log: under `/auth/` and `/dev-idp/` every query value is replaced by
 * `[redacted]` (the names and the path stay), so codes and state never reach the log.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const mark = url.indexOf("?");
  if (mark < 0) return url;
  const path = url.slice(0, mark);
  if (!secretQueryPrefixes.some((prefix) => path.startsWith(prefix))) return url;
  // Each value runs from its pair's first `=` to the next `&`.
  return `${path}?${url.slice(mark + 1).replace(/=[^&]*/g, "=[redacted]")}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number } | null;
}

/**
 * The pino `req` serializer of the service (Fastify's fields, with the URL redacted). Headers are
 * never included, so `Authorization` and `Cookie` cannot be logged through it.
 */
export function serializeRequest(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    version: request.headers?.["accept-version"],
    host: request.host ?? request.headers?.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Paths pino removes from every log line, whatever logged them. */
export const redactedLogPaths = [
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  "headers.authorization",
  "headers.cookie",
];
