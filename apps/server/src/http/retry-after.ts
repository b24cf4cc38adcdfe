import { describeError } from "../edge/errors.js";

/**
 * The `/trpc` response's status and `Retry-After`, read from its failed calls the way REST reads
 * them: a database that cannot answer now is a 503, and the longest wait any call asks for is the
 * header.
 */
export function trpcResponseMeta({ errors }: { errors: readonly unknown[] }): {
  status?: number;
  headers?: Record<string, string>;
} {
  if (errors.length === 0) return {};
  const described = errors.map(describeError);
  const waits = described.flatMap((error) => (error.retryAfter === undefined ? [] : [error.retryAfter]));
  return {
    ...(described.every((error) => error.status === 503) ? { status: 503 } : {}),
    ...(waits.length > 0 ? { headers: { "retry-after": String(Math.max(...waits)) } } : {}),
  };
}
