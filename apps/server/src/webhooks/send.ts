import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { retryAfterSeconds } from "../retry-after.js";
import { addressLiteral, isPublicAddress, type TargetRules } from "./targets.js";

/** How much of an answer's body is read, for the delivery log. */
const MAX_LOGGED_BODY = 4096;

export interface SendOutcome {
  /** The answer's status; null when there was no answer. */
  status: number | null;
  /** Seconds the receiver asked to wait (`Retry-After`), when it said. */
  retryAfterSeconds: number | null;
  /** Why there was no answer, or the start of the answer's body. */
  detail: string | null;
  durationMs: number;
}

/** Thrown by the lookup, so that no connection to a refused address is ever attempted. */
class RefusedAddress extends Error {}

/**
 * A lookup that resolves through the injected resolver and hands the socket only addresses the rules
 * allow: the check is on the address connected to, so a name that resolves to a public address when
 * the webhook was made and to a private one now is refused without a connection.
 */
function guardedLookup(rules: TargetRules): LookupFunction {
  return (hostname, options, callback) => {
    rules.resolve(hostname).then(
      (addresses) => {
        const allowed = rules.allowPrivate ? addresses : addresses.filter(isPublicAddress);
        if (allowed.length === 0 || allowed.length < addresses.length) {
          callback(new RefusedAddress(`${hostname} resolves to a private or reserved address`), "", 4);
          return;
        }
        const entries = allowed.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, "", 4),
    );
  };
}

/**
 * POSTs one signed body to a webhook target: no redirects followed, a time limit on the whole
 * exchange, the answer's body read only up to 4 KB. Never throws: a refusal, a timeout or a network
 * failure is an outcome without a status.
 */
export async function postWebhook(
  target: { url: string; headers: Record<string, string>; body: string },
  options: TargetRules & { timeoutMs: number },
): Promise<SendOutcome> {
  const started = performance.now();
  const outcome = (rest: Omit<SendOutcome, "durationMs">): SendOutcome => ({
    ...rest,
    durationMs: Math.round(performance.now() - started),
  });
  const url = new URL(target.url);
  const literal = addressLiteral(url);
  if (literal && !options.allowPrivate && !isPublicAddress(literal)) {
    return outcome({ status: null, retryAfterSeconds: null, detail: "Refused: a private or reserved address" });
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = client.request(url, {
      method: "POST",
      headers: {
        ...target.headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(target.body)),
        "user-agent": "modpack-webhooks",
      },
      lookup: guardedLookup(options),
      signal: AbortSignal.timeout(options.timeoutMs),
      // One connection per delivery: a kept-alive socket would skip the lookup's address check.
      agent: false,
    });
    request.on("socket", (socket) => {
      socket.once("connect", () => {
        // The address the socket reached, whatever led to it.
        if (!options.allowPrivate && !isPublicAddress(socket.remoteAddress ?? "")) {
          request.destroy(new RefusedAddress("Refused: connected to a private or reserved address"));
        }
      });
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        response.destroy();
        resolve(
          outcome({
            status: response.statusCode ?? null,
            retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"]),
            detail: Buffer.concat(chunks).subarray(0, MAX_LOGGED_BODY).toString("utf8") || null,
          }),
        );
      };
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_LOGGED_BODY) finish();
      });
      response.on("end", finish);
      response.on("error", finish);
    });
    request.on("error", (error) => {
      const detail =
        error instanceof RefusedAddress
          ? `Refused: ${error.message}`
          : error.name === "AbortError" || error.name === "TimeoutError"
            ? `No answer within ${options.timeoutMs} ms`
            : `Could not deliver: ${error.message}`;
      resolve(outcome({ status: null, retryAfterSeconds: null, detail: detail.slice(0, MAX_LOGGED_BODY) }));
    });
    request.end(target.body);
  });
}
