import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions {
  /** How long to keep reading before giving up (a bound for a stuck run, not a speed budget). */
  timeoutMs?: number;
  /** The pause between two reads. */
  intervalMs?: number;
}

/**
 * Reads `read()` until `done` holds for its value and answers that value; past the timeout it
 * throws, naming `what` and describing the last value read.
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: WaitOptions & { describe?: (value: T) => string } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      const last = options.describe ? options.describe(value) : JSON.stringify(value);
      throw new Error(`${what} did not happen within ${timeoutMs} ms (last: ${last})`);
    }
    await sleep(options.intervalMs ?? 20);
  }
}
