import type { FastifyBaseLogger } from "fastify";
import { fromKysely, fromPglite, type Job, PgBoss, type Queue, type WorkOptions } from "pg-boss";
import type { DatabaseHandle } from "../db/database.js";
import type { JobQueue } from "../services/ports.js";

export const JOBS_SCHEMA = "pgboss";

/** A queue, what works it, and (optionally) the cron schedule that feeds it. */
export interface JobDefinition<Data extends object = object> {
  queue: string;
  options?: Omit<Queue, "name">;
  schedule?: { cron: string; data?: object };
  /** Queue one job (at most one waiting) every time the job runtime starts. */
  atStart?: boolean;
  work?: WorkOptions;
  /** Works a batch; `queue` sends the jobs that follow from it (a delivery's retry, an event's deliveries). */
  handle(jobs: Job<Data>[], queue: Pick<JobQueue, "send">): Promise<unknown>;
}

/** The job queue of the process: the services' port, implemented on pg-boss, and its lifecycle. */
export interface Jobs extends JobQueue {
  boss: PgBoss;
  stop(options: { graceful: boolean }): Promise<void>;
}

/** How long a worker sleeps between fetches when NOTIFY is on and none came in (pg-boss's default: 30 s). */
const NOTIFY_FALLBACK_SECONDS = 5;

/**
 * A worker's options: a 2 s poll unless the queue says otherwise (used when NOTIFY is unavailable)
 * and a 5 s fallback when NOTIFY is on. A NOTIFY wakes a sleeping worker, and one that comes in
 * while it works makes it fetch again at once; otherwise it sleeps the fallback, which is how a
 * backlog queued in one burst drained one job per 30 s. Queues that take bursts fetch in batches
 * and keep fetching while the batches come back full; the fallback is left for jobs that become
 * due with no NOTIFY (retries, the jobs of a worker that died).
 */
function workOptions(work: WorkOptions = {}): WorkOptions {
  const pollingIntervalSeconds = work.pollingIntervalSeconds ?? 2;
  return {
    pollingIntervalSeconds,
    notifyPollingIntervalSeconds: Math.max(pollingIntervalSeconds, NOTIFY_FALLBACK_SECONDS),
    ...work,
  };
}

/** Sends a job through pg-boss, inside the given transaction when there is one. */
function sender(boss: PgBoss): JobQueue["send"] {
  return (queue, data, sendOptions) => {
    const { db, ...rest } = sendOptions ?? {};
    return boss.send(queue, data, db ? { ...rest, db: fromKysely(db) } : rest);
  };
}

/** Registers the workers of each queue (on a started pg-boss). */
export async function startWorkers(boss: PgBoss, definitions: JobDefinition[]): Promise<void> {
  const queue = { send: sender(boss) };
  for (const definition of definitions) {
    await boss.work(definition.queue, workOptions(definition.work), (jobs) =>
      definition.handle(jobs as Job<object>[], queue),
    );
  }
}

/** The policy pg-boss gives a queue made without one. */
const DEFAULT_POLICY = "standard";

/**
 * Makes each defined queue that does not exist yet. `createQueue` leaves a queue that exists as it
 * is, so the settings a definition names are updated where the queue holds others: a webhook
 * timeout changed since the last start, or since the build made the template a new embedded
 * database is copied from. A queue's policy is fixed when it is made (pg-boss refuses to change
 * it): a definition naming another is reported at every start, and the queue keeps its own until
 * it is deleted.
 */
export async function reconcileQueues(
  boss: PgBoss,
  definitions: JobDefinition[],
  logger: FastifyBaseLogger,
): Promise<void> {
  const existing = new Map((await boss.getQueues()).map((queue) => [queue.name, queue]));
  for (const definition of definitions) {
    const queueOptions = { notify: true, ...definition.options };
    // Neither a policy nor partitioning can change once a queue is made (pg-boss refuses both).
    const { policy = DEFAULT_POLICY, partition: _partition, ...settings } = queueOptions;
    const queue = existing.get(definition.queue);
    if (!queue) {
      await boss.createQueue(definition.queue, queueOptions);
      continue;
    }
    if (Object.entries(settings).some(([name, value]) => queue[name as keyof typeof queue] !== value)) {
      await boss.updateQueue(definition.queue, settings);
    }
    if (queue.policy !== policy) {
      logger.warn(
        { queue: definition.queue, policy: queue.policy, defined: policy },
        "job queue keeps the policy it was made with, not the one its definition names: delete the queue (and its jobs) to make it again",
      );
    }
  }
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
  await reconcileQueues(boss, options.definitions, logger);
  for (const definition of options.definitions) {
    if (definition.schedule) {
      await boss.schedule(definition.queue, definition.schedule.cron, definition.schedule.data ?? {});
    }
  }
  // `send` reads a queue into pg-boss's cache on first use, through pg-boss's own connection; on the
  // embedded database that waits for the lock a caller's open transaction holds, so the first import
  // or export request of an HTTP-only process (no workers to fill the cache) hung the database for
  // good. `createQueue` and `updateQueue` drop their queue from the cache, so fill it again here
  // for every queue.
  for (const definition of options.definitions) {
    await boss.getJobById(definition.queue, "00000000-0000-0000-0000-000000000000");
    if (definition.atStart) await boss.send(definition.queue, {}, { singletonKey: "at-start" });
  }
  if (options.workers) await startWorkers(boss, options.definitions);
  let running = true;
  return {
    boss,
    send: sender(boss),
    async stop({ graceful }) {
      if (!running) return;
      running = false;
      await boss.stop({ graceful, timeout: 20_000, close: true });
    },
    running: () => running,
    async counts() {
      const queues = await boss.getQueues();
      return queues.map((queue) => ({
        name: queue.name,
        queued: queue.queuedCount,
        active: queue.activeCount,
        deferred: queue.deferredCount,
        total: queue.totalCount,
      }));
    },
  };
}
