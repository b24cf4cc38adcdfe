import { accessDenied, type Notification, type NotificationType, notFound, type Services } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { NotificationRow } from "../db/schema.js";

export interface NewNotification {
  userId: string;
  title: string;
  content: string;
  type: NotificationType;
  metadata: Record<string, unknown>;
}

/**
 * The one way any feature creates notifications: a single insert for all of them, through the
 * given connection or transaction, so they commit (or not) with the change they describe.
 */
export async function createNotifications(db: Db, notifications: NewNotification[]): Promise<void> {
  if (notifications.length === 0) return;
  await db
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
    .execute();
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

export function notificationsService(db: Db): Services["notifications"] {
  return {
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
