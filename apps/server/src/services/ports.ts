import type { Db } from "../db/database.js";

/** The names of the job queues, shared by the services that send and the workers that work them. */
export const IMPORT_QUEUE = "modpack.import";
export const EXPORT_QUEUE = "modpack.export";
export const MOD_UPDATE_QUEUE = "mods.update";

export interface SendJobOptions {
  /** A transaction: the job is inserted through it, so it exists only if the transaction commits. */
  db?: Db;
  /** Higher runs first. */
  priority?: number;
  /** At most one queued job per key. */
  singletonKey?: string;
  /** Jobs of one group run one at a time. */
  group?: { id: string };
}

export interface QueueCounts {
  name: string;
  queued: number;
  active: number;
  deferred: number;
  total: number;
}

/**
 * How services reach the job queue: the port the job runtime (`jobs/boss.ts`) implements, so that
 * services know queues by name and nothing of the queue's library.
 */
export interface JobQueue {
  /** Queues a job and answers its id (null when a singleton key kept it out). */
  send(queue: string, data: object, options?: SendJobOptions): Promise<string | null>;
  /** True between start and stop. */
  running(): boolean;
  /** How many jobs each queue holds, by state. */
  counts(): Promise<QueueCounts[]>;
}
/**
 * Tells every instance (this one included) to forget what it cached under a key: `user:<id>` for
 * a user's sessions and tokens, `token:<id>` for one API token. Implemented by the sign-in layer's
 * revocation channel.
 */
export interface RevocationPublisher {
  publish(key: string): Promise<void>;
}

/** Issues personal API tokens; implemented by the sign-in layer's session store. */
export interface TokenIssuer {
  /** A new token, or null when the user already holds `maxLive` unexpired ones. */
  createApiToken(
    userId: string,
    name: string,
    expiresInDays: number,
    maxLive?: number,
  ): Promise<{ id: string; token: string; createdAt: Date; expiresAt: Date } | null>;
}
