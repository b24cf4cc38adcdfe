import { serviceBusy, tooManyRequests } from "@modpack/contract";
import { sql } from "kysely";
import pLimit from "p-limit";
import type { Db } from "./db/database.js";

/**
 * Serializes one user's requests of one kind until the transaction ends, on every instance, so a
 * request counts (and finds) the ones that came just before it. Two-key advisory locks do not
 * share their key space with pg-boss's single-key ones.
 */
export async function lockUserQueue(trx: Db, kind: string, userId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${kind}), hashtext(${userId}))`.execute(trx);
}

/** 429 when a user already has `limit` of something (0: no bound). */
export function checkUserLimit(options: {
  count: number;
  limit: number;
  what: string;
  retryAfterSeconds: number;
}): void {
  const { count, limit, what, retryAfterSeconds } = options;
  if (limit > 0 && count >= limit) {
    throw tooManyRequests(
      `You already have ${count} ${what} (at most ${limit}); try again when one has finished`,
      retryAfterSeconds,
    );
  }
}

/**
 * The pg-boss priority of a user's next job: minus the number of their jobs already waiting, so
 * every user's first job runs before anyone's second, and a backlog never delays another user.
 */
export function fairPriority(waiting: number): number {
  return -waiting;
}

/** Counts what each user has running in this process; `enter` refuses past the limit (0: no bound). */
export function inFlightCounter(options: { limit: number; what: string; retryAfterSeconds: number }) {
  const running = new Map<string, number>();
  return {
    /** Runs `work` as one of the user's; 429 when they already have `limit` running. */
    async run<T>(userId: string, work: () => Promise<T>): Promise<T> {
      const count = running.get(userId) ?? 0;
      checkUserLimit({ count, ...options });
      running.set(userId, count + 1);
      try {
        return await work();
      } finally {
        const left = (running.get(userId) ?? 1) - 1;
        if (left > 0) running.set(userId, left);
        else running.delete(userId);
      }
    },
  };
}

/** Costly work run a few at a time, its queue bounded (see `workGate`). */
export type WorkGate = ReturnType<typeof workGate>;

/**
 * Bounds costly work of one kind in this process, whoever asks: at most `running` at once, the rest
 * wait their turn in arrival order, and past `waiting` waiting a call answers 503 with `Retry-After`
 * instead of queueing. Throughput stays what the CPU gives, while the memory the work holds stays
 * that of `running` calls however many arrive together.
 */
export function workGate(options: { running: number; waiting: number; what: string; retryAfterSeconds: number }) {
  const limit = pLimit(options.running);
  return {
    run<T>(work: () => Promise<T>): Promise<T> {
      if (limit.pendingCount >= options.waiting) {
        return Promise.reject(
          serviceBusy(`Too many ${options.what} are waiting; try again shortly`, options.retryAfterSeconds),
        );
      }
      return limit(work);
    },
    /** Calls running now and waiting, for tests and diagnostics. */
    get counts() {
      return { running: limit.activeCount, waiting: limit.pendingCount };
    },
  };
}
