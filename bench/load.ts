/** One autocannon run as a library call, with latencies recorded at full (sub-millisecond) precision. */
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  method: "GET" | "POST";
  headers?: Record<string, string>;
  /** A JSON body per request (n counts requests from 0), for writes. */
  body?: ((n: number) => Record<string, unknown>) | undefined;
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  connections: number;
  durationSeconds: number;
  /** 2xx responses per second. */
  rps: number;
  responses: number;
  p50: number;
  p99: number;
  /** Non-2xx responses plus socket errors and timeouts. */
  errors: number;
  non2xx: number;
  socketErrors: number;
  timeouts: number;
  /** Status codes seen, for the report when errors are not zero. */
  statusCodes: Record<string, number>;
  /** Every response time (ms), sorted; dropped from the JSON report. */
  latencies?: Float64Array;
}

let bodyCounter = 0;

export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] as number;
}

/** The middle value, or the mean of the two middle ones; NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const makeBody = options.body;
  if (makeBody) headers["content-type"] = "application/json";
  let finish!: (result: autocannon.Result) => void;
  let fail!: (error: unknown) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
      url: options.url,
      method: options.method,
      headers,
      connections: options.connections,
      duration: options.durationSeconds,
      timeout: 10,
      ...(makeBody
        ? {
            requests: [
              {
                method: options.method,
                setupRequest: (request: autocannon.Request) => {
                  bodyCounter += 1;
                  request.body = JSON.stringify(makeBody(bodyCounter));
                  return request;
                },
              },
            ],
          }
        : {}),
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on("response", (_client: unknown, _statusCode: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const result = await done;
  const sorted = latencies.subarray(0, count).sort();
  const ok = result["2xx"];
  const statusCodes: Record<string, number> = {};
  for (const [code, value] of Object.entries(
    (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {},
  )) {
    statusCodes[code] = value.count;
  }
  return {
    connections: options.connections,
    durationSeconds: result.duration,
    rps: ok / result.duration,
    responses: count,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    // autocannon counts timeouts among its errors.
    errors: result.non2xx + result.errors,
    non2xx: result.non2xx,
    socketErrors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    statusCodes,
    latencies: sorted,
  };
}

/** One result from several runs of the same load: summed counts, percentiles over all responses. */
export function mergeLoads(results: LoadResult[]): LoadResult {
  const total = results.reduce((sum, result) => sum + (result.latencies?.length ?? 0), 0);
  const all = new Float64Array(total);
  let offset = 0;
  for (const result of results) {
    if (!result.latencies) continue;
    all.set(result.latencies, offset);
    offset += result.latencies.length;
  }
  all.sort();
  const sum = (pick: (result: LoadResult) => number) => results.reduce((acc, result) => acc + pick(result), 0);
  const durationSeconds = sum((result) => result.durationSeconds);
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, count] of Object.entries(result.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  return {
    connections: results[0]?.connections ?? 0,
    durationSeconds,
    rps: sum((result) => result.rps * result.durationSeconds) / Math.max(durationSeconds, 1e-9),
    responses: sum((result) => result.responses),
    p50: percentile(all, 0.5),
    p99: percentile(all, 0.99),
    errors: sum((result) => result.errors),
    non2xx: sum((result) => result.non2xx),
    socketErrors: sum((result) => result.socketErrors),
    timeouts: sum((result) => result.timeouts),
    statusCodes,
  };
}
