/**
 * Captures the SQL the service emits for each benchmarked endpoint, by calling the same service
 * functions the REST procedures call (with inputs parsed by the contract's own schemas) while
 * recording every statement Kysely compiles: its text, parameters, and when it started and ended.
 * Statements that overlapped in time ran concurrently (Promise.all in the service) and form one
 * step; the baseline replays the steps in order, each step's statements concurrently.
 */
import {
  type Caller,
  createModpackInput,
  modListInput,
  modpackModListInput,
  publicModpackListInput,
  type Services,
} from "@modpack/contract";
import type { Db } from "@modpack/server/db/database";
import type { Jobs } from "@modpack/server/jobs/boss";
import { checksService } from "@modpack/server/services/modpack-check";
import { modpackModsService } from "@modpack/server/services/modpack-mods";
import { modpacksService } from "@modpack/server/services/modpacks";
import { modsService } from "@modpack/server/services/mods";
import type { WorkshopClient } from "@modpack/server/workshop/client";
import type { CompiledQuery } from "kysely";
import type { Endpoint, EndpointId, Words } from "./endpoints.js";
import type { Seeded } from "./seed.js";

export interface Statement {
  sql: string;
  /** Parameter values; a string starting with SENTINEL is replaced by the request body's field of that name. */
  parameters: unknown[];
}

/** Each step's statements run concurrently; steps run in order. */
export type Steps = Statement[][];

export type Capture = Record<EndpointId, Steps>;

export const SENTINEL = "\u0001bench:";

class SentinelStop extends Error {}

interface Recorded extends Statement {
  start: number;
  end: number;
}

const isSentinel = (value: unknown) => typeof value === "string" && value.startsWith(SENTINEL);

/** Groups recorded statements into steps: a statement that started before the step's last one ended joins it. */
function toSteps(recorded: Recorded[]): Steps {
  const steps: Steps = [];
  let stepEnd = Number.NEGATIVE_INFINITY;
  for (const statement of [...recorded].sort((a, b) => a.start - b.start)) {
    const current = steps.at(-1);
    if (current && statement.start < stepEnd) {
      current.push({ sql: statement.sql, parameters: statement.parameters });
      stepEnd = Math.max(stepEnd, statement.end);
    } else {
      steps.push([{ sql: statement.sql, parameters: statement.parameters }]);
      stepEnd = statement.end;
    }
  }
  return steps;
}

/**
 * The statements of each endpoint, and what the service answered the check with while they were
 * recorded: the baseline's answer to the check.
 */
export async function captureSql(
  db: Db,
  seeded: Seeded,
  words: Words,
  list: Endpoint[],
): Promise<{ capture: Capture; checkAnswer: unknown }> {
  // The class of the executor the services' query builders execute through, so the copies
  // `withoutPlugins()` makes for the fixed pages are recorded too (as the test suite's statementsOf).
  type Executor = ReturnType<Db["getExecutor"]>;
  const executor = Object.getPrototypeOf(db.getExecutor()) as Executor;
  const ownBefore = Object.hasOwn(executor, "executeQuery");
  const original = executor.executeQuery;
  let recorded: Recorded[] = [];

  const caller: Caller = {
    userId: seeded.benchUser.id,
    role: "user",
    sessionId: null,
    tokenId: null,
    expiresAt: new Date(Date.now() + 300_000),
  };
  const modpacks = modpacksService(db);
  const mods = modsService({ db, workshop: {} as WorkshopClient, jobs: {} as Jobs, maxRunningRefreshesPerUser: 0 });
  // The captured reads record no changes: no job is ever sent.
  const modpackMods = modpackModsService({
    db,
    workshop: {} as WorkshopClient,
    jobs: {} as Jobs,
    changedWindowSeconds: 60,
  });

  const run: Record<EndpointId, () => Promise<unknown>> = {
    publicList: () => modpacks.listPublic(publicModpackListInput.parse({ limit: "20" })),
    publicSearch: () => modpacks.listPublic(publicModpackListInput.parse({ limit: "20", search: words.modpackSearch })),
    modpackGet: async () =>
      modpacks.get(await modpacks.authorize(caller, seeded.bigModpackId, "read", { members: true })),
    modpackMods: async () =>
      modpackMods.list(
        await modpacks.authorize(caller, seeded.bigModpackId, "read"),
        modpackModListInput.parse({ id: seeded.bigModpackId, limit: "50", tags: words.tag }),
      ),
    modpackCheck: async () =>
      checksService(db).check(await modpacks.authorize(caller, seeded.bigModpackId, "read"), {
        id: seeded.bigModpackId,
        version: "42x",
      }),
    modsSearch: () => mods.list(null, modListInput.parse({ search: words.modSearch })),
    modpackCreate: async () => {
      const input = createModpackInput.parse({ name: "placeholder", description: "placeholder", isPublic: true });
      const sentinels = {
        ...input,
        name: `${SENTINEL}name`,
        description: `${SENTINEL}description`,
        isPublic: `${SENTINEL}isPublic`,
      } as unknown as typeof input;
      return (modpacks as Services["modpacks"]).create(caller, sentinels);
    },
  };

  const capture = {} as Capture;
  let checkAnswer: unknown;
  executor.executeQuery = async function (
    this: Executor,
    compiled: CompiledQuery,
    options?: Parameters<typeof original>[1],
  ) {
    const start = performance.now();
    const statement = { sql: compiled.sql, parameters: [...compiled.parameters] };
    if (statement.parameters.some(isSentinel)) {
      recorded.push({ ...statement, start, end: performance.now() });
      throw new SentinelStop();
    }
    try {
      return await original.call(this, compiled, options);
    } finally {
      recorded.push({ ...statement, start, end: performance.now() });
    }
  } as typeof executor.executeQuery;
  try {
    for (const endpoint of list) {
      // Run twice and keep the second: the first may warm caches (none today, but cheap insurance).
      for (let pass = 0; pass < 2; pass++) {
        recorded = [];
        try {
          const answer = await run[endpoint.id]();
          if (endpoint.id === "modpackCheck") checkAnswer = answer;
        } catch (error) {
          if (!(error instanceof SentinelStop)) throw error;
        }
      }
      capture[endpoint.id] = toSteps(recorded);
    }
  } finally {
    if (ownBefore) executor.executeQuery = original;
    else delete (executor as Partial<Executor>).executeQuery;
  }
  return { capture, checkAnswer };
}

/** The SQL of a capture, readable: for the report and for EXPLAIN. */
export function describeCapture(capture: Capture): string {
  return Object.entries(capture)
    .map(([id, steps]) => {
      const lines = steps.map((step, index) =>
        step
          .map(
            (statement) =>
              `  step ${index + 1}${step.length > 1 ? " (concurrent)" : ""}: ${statement.sql}\n    params: ${JSON.stringify(statement.parameters)}`,
          )
          .join("\n"),
      );
      return `${id}:\n${lines.join("\n")}`;
    })
    .join("\n\n");
}
