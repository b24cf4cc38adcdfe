import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../src/db/migrate.js";
import { migrations } from "../src/db/migrations/index.js";
import { type JobDefinition, reconcileQueues } from "../src/jobs/boss.js";
import { SWEEP_SESSIONS_QUEUE } from "../src/jobs/maintenance.js";
import { captureLog } from "./support/log-capture.js";
import { startTestService, type TestService } from "./support/service.js";

let service: TestService;
const log = captureLog();

beforeAll(async () => {
  // A variable that no longer does anything still starts the service.
  const env: Record<string, string> = { DATABASE_PREPARED_STATEMENTS: "true" };
  service = await startTestService({ env, logger: log.logger, emptyDatabase: true });
});
afterAll(() => service.stop());

describe("start-up", () => {
  it("names an ignored configuration variable in one warning", () => {
    const ignored = log.lines().filter((line) => String(line.msg).startsWith("ignored configuration"));
    expect(ignored).toEqual([expect.objectContaining({ level: 40, variables: ["DATABASE_PREPARED_STATEMENTS"] })]);
  });
});

describe("migrations", () => {
  it("applied every numbered migration to the empty database", async () => {
    const { db } = service.runtime.database;
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    expect(applied.rows.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
    const tables = await sql<{ tablename: string }>`
      select tablename from pg_tables where schemaname = 'public' and tablename not like 'kysely_%' order by tablename
    `.execute(db);
    expect(tables.rows.map((row) => row.tablename)).toEqual([
      "accounts",
      "api_tokens",
      "export_configurations",
      "exports",
      "imports",
      "modpack_invitations",
      "modpack_members",
      "modpack_mods",
      "modpack_revision_mods",
      "modpack_revisions",
      "modpacks",
      "mods",
      "notifications",
      "pending_initial_revisions",
      "server_starts",
      "sessions",
      "users",
      "webhook_deliveries",
      "webhooks",
    ]);
  });

  it("is a no-op the second time", async () => {
    const result = await migrateToLatest(service.runtime.database.db);
    expect(result.results).toEqual([]);
  });

  it("generates time-ordered UUIDs (v7) in the database", async () => {
    const { db } = service.runtime.database;
    const ids = await sql<{ id: string }>`select uuid_v7()::text as id from generate_series(1, 3)`.execute(db);
    for (const { id } of ids.rows)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("readiness", () => {
  it("reports the database and the job queue ready", async () => {
    const response = await service.app.inject({ method: "GET", url: "/health/ready" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ready", database: "ok", jobs: "ok" });
  });
});

describe("jobs", () => {
  it("runs a job sent to a queue to completion with its result", async () => {
    const { db } = service.runtime.database;
    const user = await db
      .insertInto("users")
      .values({ name: "Sweep", email: null, image: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("sessions")
      .values([
        { tokenHash: "expired-hash", userId: user.id, expiresAt: new Date(Date.now() - 60_000) },
        { tokenHash: "live-hash", userId: user.id, expiresAt: new Date(Date.now() + 60_000) },
      ])
      .execute();

    const { jobs } = service.runtime;
    const id = await jobs.send(SWEEP_SESSIONS_QUEUE, {});
    expect(id).toBeTruthy();
    let state: string | undefined;
    let output: unknown;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const [job] = await jobs.boss.findJobs(SWEEP_SESSIONS_QUEUE, { id: id ?? "" });
      state = job?.state;
      output = job?.output;
      if (state === "completed" || state === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe("completed");
    expect(output).toEqual({ sessionsDeleted: 1, tokensDeleted: 0 });
    const left = await db.selectFrom("sessions").select("tokenHash").execute();
    expect(left.map((row) => row.tokenHash)).toEqual(["live-hash"]);
  });
});

describe("a queue's policy", () => {
  it("stays the one the queue was made with; a definition naming another is reported", async () => {
    const { boss } = service.runtime.jobs;
    const handle = async () => undefined;
    const definedAs = (options: JobDefinition["options"]): JobDefinition[] => [
      { queue: "policy-probe", options, handle },
    ];
    const reported = () => log.lines().filter((line) => line.queue === "policy-probe");
    await reconcileQueues(boss, definedAs({ policy: "standard", retryLimit: 2 }), log.logger);
    expect(reported()).toEqual([]);

    // pg-boss cannot change a queue's policy: the settings it can change are updated, the policy
    // is named in a warning.
    await reconcileQueues(boss, definedAs({ policy: "singleton", retryLimit: 4 }), log.logger);
    expect(await boss.getQueue("policy-probe")).toMatchObject({ policy: "standard", retryLimit: 4 });
    expect(reported()).toEqual([expect.objectContaining({ level: 40, policy: "standard", defined: "singleton" })]);

    // A definition without a policy names pg-boss's default, the queue's: nothing more is reported.
    await reconcileQueues(boss, definedAs({ retryLimit: 4 }), log.logger);
    expect(reported()).toHaveLength(1);
    await boss.deleteQueue("policy-probe");
  });
});
