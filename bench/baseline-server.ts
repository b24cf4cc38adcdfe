/**
 * The baseline: a minimal Fastify + pg server answering the benchmarked routes by replaying the
 * SQL the service emits for them (captured from the service's own code by capture.ts), with no
 * tRPC, no validation and no auth: the limit of this stack on this machine. Same pool size as the
 * service. Runs as a child process; reports its port over IPC and exits on "stop".
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";
import pg from "pg";
import type { Capture, Statement, Steps } from "./capture.js";
import { SENTINEL } from "./capture.js";
import { answerProfileMessage } from "./profiler.js";
import { answerQueryCounts, installQueryCounter } from "./query-counter.js";

// The service's own type parsing: bigint counts as numbers.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

installQueryCounter();
const capture = JSON.parse(readFileSync(process.env.BENCH_CAPTURE_FILE ?? "", "utf8")) as Capture;
/**
 * The service's answer to the check, kept from the capture. The check answers what it computed, not
 * the rows of a statement (a large modpack's findings and load order are many times the size of its
 * last statement's rows), so the baseline serialises and writes the same answer each time: the
 * difference left is the check's own work.
 */
const checkAnswer: unknown = JSON.parse(readFileSync(process.env.BENCH_CHECK_ANSWER_FILE ?? "", "utf8"));
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  idleTimeoutMillis: 30_000,
});

function parametersFor(statement: Statement, body: Record<string, unknown> | undefined): unknown[] {
  return statement.parameters.map((value) =>
    typeof value === "string" && value.startsWith(SENTINEL) ? body?.[value.slice(SENTINEL.length)] : value,
  );
}

/** Runs the steps in order, each step's statements concurrently; the rows of each statement, in order. */
async function replay(steps: Steps, body?: Record<string, unknown>): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const step of steps) {
    const results = await Promise.all(
      step.map((statement) => pool.query({ text: statement.sql, values: parametersFor(statement, body) })),
    );
    rows.push(...results.map((result) => result.rows));
  }
  return rows;
}

/**
 * What a read answers: the rows of its last statement, which is what the service's answer is made
 * of. A search's page is one statement, carrying the planner's estimate of its matches; a modpack's
 * mods read the modpack's rule first, then the page. The check answers otherwise (`checkAnswer`).
 */
async function answer(steps: Steps): Promise<unknown> {
  const rows = await replay(steps);
  return rows.at(-1) ?? [];
}

const app = Fastify({ logger: false });
app.get<{ Querystring: { search?: string } }>("/modpacks/public", async (request) => ({
  data: await answer(request.query.search ? capture.publicSearch : capture.publicList),
}));
app.get("/modpacks/:id", async () => answer(capture.modpackGet));
app.get("/modpacks/:id/mods", async () => ({ data: await answer(capture.modpackMods) }));
app.get("/modpacks/:id/check", async () => {
  await replay(capture.modpackCheck);
  return checkAnswer;
});
app.get("/mods", async () => ({ data: await answer(capture.modsSearch) }));
app.post<{ Body: Record<string, unknown> }>("/modpacks", async (request, reply) => {
  const [rows] = await replay(capture.modpackCreate, request.body);
  return reply.code(201).send(rows?.[0]);
});

await app.listen({ port: 0, host: "127.0.0.1" });
const address = app.server.address();
process.send?.({ type: "ready", port: typeof address === "object" && address ? address.port : 0 });
process.on("message", (message: { type?: string; file?: string }) => {
  if (answerQueryCounts(message)) return;
  if (message?.type?.startsWith("profile-")) {
    void answerProfileMessage(message);
    return;
  }
  if (message?.type !== "stop") return;
  app
    .close()
    .then(() => pool.end())
    .finally(() => process.exit(0));
});
