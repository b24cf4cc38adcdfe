import type { Notification } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "./database.js";

/** A notification to create: its metadata is stored as JSON and answered as a string. */
export type NewNotification = Pick<Notification, "userId" | "title" | "content" | "type"> & {
  metadata: Record<string, unknown>;
};

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
    .values(notifications.map((notification) => ({ ...notification, metadata: JSON.stringify(notification.metadata) })))
    .returning(["id", "userId"])
    .execute();
  const payloads = rows.map((row) => `${row.userId}:${row.id}`);
  await sql`select pg_notify(${NOTIFICATION_CHANNEL}, payload) from unnest(${payloads}::text[]) as payload`.execute(db);
}

/** Creates one notification, as createNotifications does. */
export function notify(db: Db, notification: NewNotification): Promise<void> {
  return createNotifications(db, [notification]);
}
