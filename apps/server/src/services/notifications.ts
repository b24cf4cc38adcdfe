import { accessDenied, type Caller, type Notification, notFound, type Services } from "@modpack/contract";
import { sql } from "kysely";
import type { DatabaseHandle, Db } from "../db/database.js";
import { listen } from "../db/listen.js";
import { NOTIFICATION_CHANNEL } from "../db/notifications.js";
import type { NotificationRow } from "../db/schema.js";
import { type RevocableCredential, type Revocation, revokes } from "./ports.js";

export interface NotificationHub {
  /**
   * The new notifications of the caller, created on any instance, as they commit; ends when
   * `signal` aborts, the hub ends its streams, or the caller's credential ends (see `revoke`).
   */
  stream(caller: Caller, signal: AbortSignal): AsyncGenerator<Notification>;
  /** Ends at once, with nothing more delivered, the streams of the credentials a revocation ends. */
  revoke(revocation: Revocation): void;
  /** Re-checks every open stream's credential (after revocation messages may have been missed). */
  recheck(): void;
  /** Ends every open stream (so responses finish and shutdown can complete). */
  endStreams(): void;
  /** Open streams on this instance. */
  size(): number;
  close(): Promise<void>;
}

/** What a stream's credential is now: its expiry and its user's role, or null when it is gone. */
export type ConfirmCredential = (caller: Caller) => Promise<{ expiresAt: number; role: Caller["role"] } | null>;

export interface StreamBounds {
  /** Open streams per user; opening one more ends that user's oldest. */
  perUser: number;
  /** Open streams on this instance; opening one more ends the oldest. */
  max: number;
  /** Notifications waiting for a reader that does not read; past it the stream is dropped. */
  maxPending: number;
}

interface OpenStream {
  caller: Caller;
  /** When its credential is checked next. */
  timer?: NodeJS.Timeout;
  deliver(notification: Notification): void;
  end(): void;
}

/** Longest wait between checks of a stream's credential expiry (timers cannot wait longer than ~24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Fans new notifications out to this instance's open streams, fed by Postgres NOTIFY from every instance. */
export async function openNotificationHub(options: {
  database: DatabaseHandle;
  logger: Parameters<typeof listen>[0]["logger"];
  bounds: StreamBounds;
  /** Asked when a stream's credential reaches its expiry (sessions slide) and after a revocation gap. */
  confirm: ConfirmCredential;
  /** The clock credentials expire by, in epoch milliseconds. */
  now?: () => number;
}): Promise<NotificationHub> {
  const { database, logger, bounds, confirm } = options;
  const now = options.now ?? Date.now;
  // Insertion order is opening order: the first entry of a set is its oldest stream.
  const open = new Set<OpenStream>();
  const byUser = new Map<string, Set<OpenStream>>();
  // Rows load one after another, so each stream gets its notifications in the order they were created.
  let delivery = Promise.resolve();
  const listener = await listen({
    database,
    channel: NOTIFICATION_CHANNEL,
    logger,
    onMessage(payload) {
      const [userId, id] = payload.split(":");
      if (!userId || !id || !byUser.get(userId)?.size) return;
      delivery = delivery.then(async () => {
        try {
          const row = await database.db.selectFrom("notifications").selectAll().where("id", "=", id).executeTakeFirst();
          if (!row) return;
          const notification = toNotification(row);
          for (const target of byUser.get(userId) ?? []) target.deliver(notification);
        } catch (error) {
          logger.warn({ err: error }, "could not load a notification to push");
        }
      });
    },
  });

  const check = (target: OpenStream) => {
    confirm(target.caller).then(
      (current) => {
        if (!open.has(target)) return;
        if (!current || current.expiresAt <= now() || current.role !== target.caller.role) target.end();
        else schedule(target, current.expiresAt);
      },
      // A stream whose credential cannot be checked now is ended, never left unchecked: the client
      // reconnects, and its new stream is checked from the start.
      (error: unknown) => {
        logger.warn({ err: error }, "could not check a notification stream's credential; ending it");
        target.end();
      },
    );
  };
  const schedule = (target: OpenStream, expiresAt: number) => {
    clearTimeout(target.timer);
    target.timer = setTimeout(() => check(target), Math.min(Math.max(0, expiresAt - now()), MAX_TIMER_MS));
    target.timer.unref();
  };

  /** Subscribes at once (nothing created after this call is missed); iterating drains what arrived. */
  function stream(caller: Caller, signal: AbortSignal): AsyncGenerator<Notification> {
    let pending: Notification[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    const mine = byUser.get(caller.userId) ?? new Set<OpenStream>();
    const target: OpenStream = {
      caller,
      deliver(notification) {
        if (ended) return;
        if (pending.length >= bounds.maxPending) {
          target.end();
          return;
        }
        pending.push(notification);
        wake?.();
      },
      end() {
        if (ended) return;
        ended = true;
        // Whatever was not yet read is dropped: nothing reaches a stream after it ends.
        pending = [];
        open.delete(target);
        mine.delete(target);
        if (mine.size === 0 && byUser.get(caller.userId) === mine) byUser.delete(caller.userId);
        clearTimeout(target.timer);
        signal.removeEventListener("abort", target.end);
        wake?.();
      },
    };
    while (mine.size >= bounds.perUser) mine.values().next().value?.end();
    while (open.size >= bounds.max) open.values().next().value?.end();
    // Set only now: ending the user's last stream above drops their entry.
    byUser.set(caller.userId, mine);
    open.add(target);
    mine.add(target);
    schedule(target, caller.expiresAt.getTime());
    signal.addEventListener("abort", target.end);
    if (signal.aborted) target.end();
    async function* iterate(): AsyncGenerator<Notification> {
      try {
        for (;;) {
          const next = pending.shift();
          if (next) {
            yield next;
            continue;
          }
          if (ended) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      } finally {
        target.end();
      }
    }
    return iterate();
  }

  const endAll = () => {
    for (const target of [...open]) target.end();
  };
  return {
    stream,
    revoke(revocation) {
      const targets = revocation.kind === "user" ? [...(byUser.get(revocation.id) ?? [])] : [...open];
      for (const target of targets) {
        if (revokes(revocation, credentialOf(target.caller))) target.end();
      }
    },
    recheck() {
      for (const target of [...open]) check(target);
    },
    endStreams: endAll,
    size: () => open.size,
    async close() {
      endAll();
      await listener.close();
    },
  };
}

/** The credential a stream was opened with: its session, else its API token. */
function credentialOf(caller: Caller): RevocableCredential {
  return caller.sessionId
    ? { kind: "session", id: caller.sessionId, userId: caller.userId }
    : { kind: "token", id: caller.tokenId ?? "", userId: caller.userId };
}

export function toNotification(row: NotificationRow): Notification {
  return {
    ...row,
    metadata: JSON.stringify(row.metadata ?? {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function notificationsService(db: Db, hub: NotificationHub): Services["notifications"] {
  return {
    stream: (caller, signal) => hub.stream(caller, signal),

    async list(caller, input) {
      let query = db
        .selectFrom("notifications")
        .selectAll()
        .where("userId", "=", caller.userId)
        .orderBy("createdAt", "desc")
        .orderBy("id", "desc")
        .limit(input.limit);
      if (input.unreadOnly) query = query.where("isRead", "=", false);
      const [rows, unread] = await Promise.all([
        query.execute(),
        db
          .selectFrom("notifications")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("userId", "=", caller.userId)
          .where("isRead", "=", false)
          .executeTakeFirstOrThrow(),
      ]);
      return { notifications: rows.map(toNotification), unreadCount: Number(unread.count) };
    },

    async markRead(caller, { id }) {
      const existing = await db.selectFrom("notifications").select("userId").where("id", "=", id).executeTakeFirst();
      if (!existing) throw notFound("Notification not found");
      if (existing.userId !== caller.userId) throw accessDenied();
      const row = await db
        .updateTable("notifications")
        .set({ isRead: true, updatedAt: sql<Date>`now()` })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toNotification(row);
    },

    async markAllRead(caller) {
      const result = await db
        .updateTable("notifications")
        .set({ isRead: true, updatedAt: sql<Date>`now()` })
        .where("userId", "=", caller.userId)
        .where("isRead", "=", false)
        .executeTakeFirst();
      return { updated: Number(result.numUpdatedRows) };
    },
  };
}
