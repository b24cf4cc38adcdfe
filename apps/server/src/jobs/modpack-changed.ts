import type { Db } from "../db/database.js";
import { publishModpackChanged } from "../db/webhooks.js";
import { MODPACK_CHANGED_QUEUE } from "../services/ports.js";
import type { JobDefinition } from "./boss.js";

/**
 * Closes a modpack's change window: sends one `modpack.changed` event with every change recorded
 * since the window opened. At most one job per modpack waits at a time (the first change of a
 * window queues it); a change made while it runs opens the next window.
 */
export function modpackChangedJob(deps: { db: Db }): JobDefinition<{ modpackId: string }> {
  return {
    queue: MODPACK_CHANGED_QUEUE,
    options: { policy: "stately", retryLimit: 3, retryDelay: 5, expireInSeconds: 60 },
    async handle(jobs, queue) {
      for (const job of jobs) await publishModpackChanged({ db: deps.db, jobs: queue }, job.data.modpackId);
    },
  };
}
