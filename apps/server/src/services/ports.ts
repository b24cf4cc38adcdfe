import type { AdminStats } from "@modpack/contract";
import type { Db } from "../db/database.js";

/** The names of the job queues, shared by the services that send and the workers that work them. */
export const IMPORT_QUEUE = "modpack.import";
export const EXPORT_QUEUE = "modpack.export";
export const MOD_UPDATE_QUEUE = "mods.update";
export const WEBHOOK_DELIVERY_QUEUE = "webhooks.deliver";
export const MODPACK_CHANGED_QUEUE = "webhooks.modpack-changed";

export interface SendJobOptions {
  /** A transaction: the job is inserted through it, so it exists only if the transaction commits. */
  db?: Db;
  /** Higher runs first. */
  priority?: number;
  /** At most one queued job per key. */
  singletonKey?: string;
  /** Jobs of one group run one at a time. */
  group?: { id: string };
  /** Not before this moment. */
  startAfter?: Date;
}

/** One queue's jobs by state, as the admin statistics show them. */
export type QueueCounts = AdminStats["queues"][number];

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
 * What a revocation ends: one session, one API token, or everything of a user (its sessions, its
 * tokens and the streams they opened).
 */
export interface Revocation {
  kind: "session" | "token" | "user";
  id: string;
}

/** A credential as revocations see it: a session or an API token, and its user. */
export interface RevocableCredential {
  kind: "session" | "token";
  id: string;
  userId: string;
}

/** True when `revocation` ends `credential`. */
export function revokes(revocation: Revocation, credential: RevocableCredential): boolean {
  return revocation.kind === "user"
    ? credential.userId === revocation.id
    : credential.kind === revocation.kind && credential.id === revocation.id;
}

/**
 * Tells every instance (this one included) to forget what it cached of a revoked credential and to
 * end its streams. Implemented by the sign-in layer's revocation channel.
 */
export interface RevocationPublisher {
  publish(revocation: Revocation): Promise<void>;
}

/**
 * A new API token's secret, for its owner, and the hash the database keeps of it. Implemented by
 * the sign-in layer, which checks the tokens it issues.
 */
export type TokenIssuer = () => { token: string; tokenHash: string };
