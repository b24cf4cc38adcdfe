import type { Services } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { JobQueue } from "./ports.js";

export function healthService(db: Db, jobs: JobQueue): Services["health"] {
  return {
    async readiness() {
      try {
        await sql`select 1`.execute(db);
      } catch (cause) {
        throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "Database unavailable", cause });
      }
      if (!jobs.running()) {
        throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "Job queue not running" });
      }
      return { status: "ready", database: "ok", jobs: "ok" };
    },
  };
}
