import type { FastifyBaseLogger } from "fastify";
import { fromKysely, fromPglite, type Job, PgBoss, type Queue, type SendOptions, type WorkOptions } from "pg-boss";
import type { DatabaseHandle, Db } from "../db/database.js";

export const JOBS_SCHEMA = "pgboss";

/** A queue, what works it, and (optionally) the cron schedule that feeds it. */
export interface JobDefinition<Data extends object = object> {
  queue: string;
  options?: Omit<Queue, "name">;
  schedule?: { cron: string; data?: object };
  work?: WorkOptions;
  handle(jobs: Job<Data>[]): Promise<unknown>;
}

export interface Jobs {
  boss: PgBoss;
  /**
   * Queues a job. Given `db` (a transaction), the job is inserted through it, so it exists only
   * if the transaction commits.
   */
  send(queue: string, data: object, options?: Omit<SendOptions, "db"> & { db?: Db }): Promise<string | null>;
  stop(options?: { graceful?: boolean; timeout?: number }): Promise<void>;
  /** True between start and stop. */
  running(): boolean;
}

/**
 * Starts pg-boss on the service's database (its own schema), creates every queue, registers
 * the schedules, and — unless this process only serves HTTP — the workers.
 */
export async function startJobs(options: {
  database: DatabaseHandle;
  definitions: JobDefinition[];
  logger: FastifyBaseLogger;
  workers: boolean;
}): Promise<Jobs> {
  const { database, logger } = options;
  // Workers wake on NOTIFY when a job is sent; a job whose worker died (no heartbeat) is retried within seconds.
  const supervision = { useListenNotify: true, superviseIntervalSeconds: 5, monitorIntervalSeconds: 5 };
  const boss =
    database.kind === "postgres"
      ? new PgBoss({
          connectionString: database.connectionString,
          schema: JOBS_SCHEMA,
          max: 4,
          application_name: "modpack-jobs",
          ...supervision,
        })
      : new PgBoss({ db: fromPglite(database.pglite), backend: "pglite", schema: JOBS_SCHEMA, ...supervision });
  boss.on("error", (error) => logger.error({ err: error }, "job queue error"));
  boss.on("warning", (warning) => logger.warn({ warning }, "job queue warning"));
  await boss.start();
  for (const definition of options.definitions) {
    await boss.createQueue(definition.queue, { notify: true, ...definition.options });
    if (definition.schedule) {
      await boss.schedule(definition.queue, definition.schedule.cron, definition.schedule.data ?? {});
    }
  }
  // `send` reads a queue into pg-boss's cache on first use, through pg-boss's own connection; on the
  // embedded database that waits for the lock a caller's open transaction holds, so the first import
  // or export request of an HTTP-only process (no workers to fill the cache) hung the database for
  // good. `createQueue` empties the cache, so fill it again here for every queue.
  for (const definition of options.definitions) {
    await boss.getJobById(definition.queue, "00000000-0000-0000-0000-000000000000");
  }
  if (options.workers) {
    for (const definition of options.definitions) {
      await boss.work(definition.queue, { pollingIntervalSeconds: 2, ...definition.work }, (jobs) =>
        definition.handle(jobs as Job<object>[]),
      );
    }
  }
  let running = true;
  return {
    boss,
    send(queue, data, sendOptions) {
      const { db, ...rest } = sendOptions ?? {};
      return boss.send(queue, data, db ? { ...rest, db: fromKysely(db) } : rest);
    },
    async stop(stopOptions) {
      if (!running) return;
      running = false;
      await boss.stop({
        graceful: stopOptions?.graceful ?? true,
        timeout: stopOptions?.timeout ?? 20_000,
        close: true,
      });
    },
    running: () => running,
  };
}
