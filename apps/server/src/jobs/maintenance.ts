import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { purgeDeliveries } from "../db/webhook-deliveries.js";
import type { JobDefinition } from "./boss.js";

export const SWEEP_SESSIONS_QUEUE = "maintenance.sweep-sessions";

/** Deletes expired sessions and API tokens every ten minutes. */
export function sweepSessionsJob(db: Db): JobDefinition {
  return {
    queue: SWEEP_SESSIONS_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 120, deleteAfterSeconds: 3600 },
    schedule: { cron: "*/10 * * * *" },
    async handle() {
      const sessions = await db.deleteFrom("sessions").where("expiresAt", "<", sql<Date>`now()`).executeTakeFirst();
      const tokens = await db
        .deleteFrom("apiTokens")
        .where("expiresAt", "is not", null)
        .where("expiresAt", "<", sql<Date>`now()`)
        .executeTakeFirst();
      return {
        sessionsDeleted: Number(sessions.numDeletedRows),
        tokensDeleted: Number(tokens.numDeletedRows),
      };
    },
  };
}

export const PURGE_QUEUE = "maintenance.purge";

/**
 * Deletes finished exports (their files included) and read notifications older than the configured
 * ages, every hour; an age of 0 keeps them. Pending and running exports and unread notifications stay.
 * Expired invitations are deleted too, and settled webhook delivery attempts past their age.
 */
export function purgeJob(
  db: Db,
  ages: { exportsAfterDays: number; readNotificationsAfterDays: number; webhookDeliveriesAfterDays: number },
): JobDefinition {
  const before = (days: number) => sql<Date>`now() - make_interval(days => ${days})`;
  return {
    queue: PURGE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 600, deleteAfterSeconds: 3600 },
    schedule: { cron: "17 * * * *" },
    async handle() {
      let exportsDeleted = 0;
      let notificationsDeleted = 0;
      if (ages.exportsAfterDays > 0) {
        const deleted = await db
          .deleteFrom("exports")
          .where("status", "in", ["completed", "failed"])
          .where("finishedAt", "<", before(ages.exportsAfterDays))
          .executeTakeFirst();
        exportsDeleted = Number(deleted.numDeletedRows);
      }
      if (ages.readNotificationsAfterDays > 0) {
        const deleted = await db
          .deleteFrom("notifications")
          .where("isRead", "=", true)
          .where("updatedAt", "<", before(ages.readNotificationsAfterDays))
          .executeTakeFirst();
        notificationsDeleted = Number(deleted.numDeletedRows);
      }
      const invitations = await db
        .deleteFrom("modpackInvitations")
        .where("expiresAt", "<=", sql<Date>`now()`)
        .executeTakeFirst();
      const invitationsDeleted = Number(invitations.numDeletedRows);
      const deliveriesDeleted =
        ages.webhookDeliveriesAfterDays > 0 ? await purgeDeliveries(db, ages.webhookDeliveriesAfterDays) : 0;
      return { exportsDeleted, notificationsDeleted, invitationsDeleted, deliveriesDeleted };
    },
  };
}
