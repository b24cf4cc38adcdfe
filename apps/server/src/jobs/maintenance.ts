import { sql } from "kysely";
import type { Db } from "../db/database.js";
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
