import type { Services } from "@modpack/contract";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { type Environment, loadConfig } from "../../src/config.js";
import { type Runtime, startRuntime } from "../../src/runtime.js";
import type { ResolveHost } from "../../src/webhooks/targets.js";
import { type Answer, recordAnswers, undeclaredAnswers } from "./answers.js";
import { createTestDatabase, type TestDatabase } from "./database.js";

/** Tests never resolve a name through the system: a webhook host they did not map is unknown. */
const noResolution: ResolveHost = async (hostname) => {
  throw new Error(`${hostname}: not resolved in tests`);
};

export interface TestService {
  runtime: Runtime;
  app: FastifyInstance;
  database: TestDatabase;
  /** Every answer the app has sent so far. */
  answers: Answer[];
  /** Stops the service, then fails if it gave an answer its OpenAPI document does not describe. */
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Partial<Record<keyof Environment, string>>;
  /** Replaces services, to make a procedure fail on purpose. */
  services?: (services: Services) => Services;
  /** Reuse another service's database (a second instance). */
  database?: TestDatabase;
  /** Start on a database the service's start has never touched, not a copy of the migrated one. */
  emptyDatabase?: boolean;
  /** The clock sessions and tokens expire by (epoch milliseconds). */
  clock?: () => number;
  /** The logger the service writes to (tests capture its output). */
  logger?: FastifyBaseLogger;
  /** `api` serves HTTP without working jobs, so nothing changes rows behind a request's back. */
  role?: "api" | "all";
  /** How webhook targets' names resolve; by default every name fails to resolve, so no test reaches a public name. */
  resolveHost?: ResolveHost;
}

/** Starts the whole service (database, migrations, jobs, HTTP app) on this file's own database. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = options.database ?? (await createTestDatabase({ empty: options.emptyDatabase === true }));
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const runtime = await startRuntime(config, {
    services: options.services,
    clock: options.clock,
    ...(options.role ? { role: options.role } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    resolveHost: options.resolveHost ?? noResolution,
    template: database.template,
  });
  if (!runtime.app) throw new Error("the test service has no HTTP app");
  const answers = recordAnswers(runtime.app);
  const app = runtime.app;
  // Read now, while the app is sure to be open: some tests close it themselves before stop().
  const document = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
  answers.length = 0;
  return {
    runtime,
    app,
    database,
    answers,
    async stop() {
      await runtime.close();
      if (!options.database) await database.drop();
      const problems = undeclaredAnswers(document, answers.splice(0));
      if (problems.length > 0) {
        throw new Error(`answers the OpenAPI document does not describe:\n${problems.join("\n")}`);
      }
    },
  };
}
