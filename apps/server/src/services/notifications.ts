import { accessDenied, type Notification, type NotificationType, notFound, type Services } from "@modpack/contract";
import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import type { DatabaseHandle, Db } from "../db/database.js";
import { listen } from "../db/listen.js";
import type { NotificationRow } from "../db/schema.js";

export interface NewNotification {
  userId: string;
  title: string;
  content: string;
  type: NotificationType;
  metadata: Record<string, unknown>;
}

export const NOTIFICATION_CHANNEL = "mcs_notifications";

/**
 * The one way any feature creates notifications: a single insert for all of them, through the
 * given connection or transaction, so they commit (or not) with the change they describe. Each
 * is announced on NOTIFY, which Postgres delivers only when the transaction commits.
 */
export async function createNotifications(db: Db, notifications: NewNotification[]): Promise<void> {
  if (notifications.length === 0) return;
  const rows = await db
    .insertInto("notifications")
    .values(
      notifications.map((notification) => ({
        userId: notification.userId,
        title: notification.title,
        content: notification.content,
        type: notification.type,
        metadata: JSON.stringify(notification.metadata),
      })),
    )
    .returning(["id", "userId"])
    .execute();
  const payloads = rows.map((row) => `${row.userId}:${row.id}`);
  await sql`select pg_notify(${NOTIFICATION_CHANNEL}, payload) from unnest(${payloads}::text[]) as payload`.execute(db);
}

export interface NotificationHub {
  /**
   * The new notifications of `userId`, created on any instance, as they commit; ends when `signal`
   * aborts or the hub ends its streams.
   */
  stream(userId: string, signal: AbortSignal): AsyncGenerator<Notification>;
  /** Ends every open stream (so responses finish and shutdown can complete). */
  endStreams(): void;
  close(): Promise<void>;
}

/** Fans new notifications out to this instance's open streams, fed by Postgres NOTIFY from every instance. */
export async function openNotificationHub(options: {
  database: DatabaseHandle;
  logger: FastifyBaseLogger;
}): Promise<NotificationHub> {
  const { database, logger } = options;
  const subscribers = new Map<string, Set<(notification: Notification) => void>>();
  const enders = new Set<() => void>();
  // Rows load one after another, so each stream gets its notifications in the order they were created.
  let delivery = Promise.resolve();
  const listener = await listen({
    database,
    channel: NOTIFICATION_CHANNEL,
    logger,
    onMessage(payload) {
      const [userId, id] = payload.split(":");
      if (!userId || !id || !subscribers.get(userId)?.size) return;
      delivery = delivery.then(async () => {
        try {
          const row = await database.db.selectFrom("notifications").selectAll().where("id", "=", id).executeTakeFirst();
          if (!row) return;
          const notification = toNotification(row);
          for (const deliver of subscribers.get(userId) ?? []) deliver(notification);
        } catch (error) {
          logger.warn({ err: error }, "could not load a notification to push");
        }
      });
    },
  });

  /** Subscribes at once (nothing created after this call is missed); iterating drains what arrived. */
  function stream(userId: string, signal: AbortSignal): AsyncGenerator<Notification> {
    const pending: Notification[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    const deliver = (notification: Notification) => {
      pending.push(notification);
      wake?.();
    };
    const targets = subscribers.get(userId) ?? new Set();
    targets.add(deliver);
    subscribers.set(userId, targets);
    const end = () => {
      ended = true;
      targets.delete(deliver);
      if (targets.size === 0 && subscribers.get(userId) === targets) subscribers.delete(userId);
      enders.delete(end);
      signal.removeEventListener("abort", end);
      wake?.();
    };
    enders.add(end);
    signal.addEventListener("abort", end);
    if (signal.aborted) end();
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
        end();
      }
    }
    return iterate();
  }

  return {
    stream,
    endStreams() {
      for (const end of [...enders]) end();
    },
    async close() {
      for (const end of [...enders]) end();
      await listener.close();
    },
  };
}

export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    userId: row.userId,
    title: row.title,
    content: row.content,
    type: row.type,
    isRead: row.isRead,
    metadata: JSON.stringify(row.metadata ?? {}),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function notificationsService(db: Db, hub: NotificationHub): Services["notifications"] {
  return {
    stream(caller, signal) {
      return hub.stream(caller.userId, signal);
    },

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

    async markRead(caller, id) {
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
