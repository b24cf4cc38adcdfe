import { retryAfterOf } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { workGate } from "./user-limits.js";

/** A piece of work that runs until the test finishes it, recording when it started. */
function pendingWork(started: string[], name: string) {
  let finish: (value: string) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    work: () => {
      started.push(name);
      return done;
    },
    finish: () => finish(name),
    fail: () => fail(new Error(`${name} failed`)),
  };
}

/** Lets every settled promise's reactions run (the gate starts the next call from a reaction). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("workGate", () => {
  it("runs at most `running` calls at once, the rest in arrival order as slots free", async () => {
    const gate = workGate({ running: 2, waiting: 10, what: "checks", retryAfterSeconds: 1 });
    const started: string[] = [];
    const works = ["a", "b", "c", "d", "e"].map((name) => pendingWork(started, name));
    // Settled as they end, so a failure is not an unhandled rejection meanwhile.
    const answers = works.map((item) => {
      const answer = gate.run(item.work);
      answer.catch(() => {});
      return answer;
    });
    await settle();
    expect(started).toEqual(["a", "b"]);
    expect(gate.counts).toEqual({ running: 2, waiting: 3 });

    works[1]?.finish();
    await settle();
    expect(started).toEqual(["a", "b", "c"]);
    works[0]?.fail();
    await settle();
    expect(started).toEqual(["a", "b", "c", "d"]);
    for (const item of works.slice(2)) item.finish();
    await settle();
    expect(started).toEqual(["a", "b", "c", "d", "e"]);

    const results = await Promise.allSettled(answers);
    expect(results.map((result) => result.status)).toEqual([
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    expect(gate.counts).toEqual({ running: 0, waiting: 0 });
  });

  it("answers 503 with Retry-After past `waiting` waiting calls, without running the refused work", async () => {
    const gate = workGate({ running: 1, waiting: 2, what: "modpack checks", retryAfterSeconds: 3 });
    const started: string[] = [];
    const works = ["a", "b", "c"].map((name) => pendingWork(started, name));
    const answers = works.map((item) => gate.run(item.work));
    await settle();
    expect(gate.counts).toEqual({ running: 1, waiting: 2 });

    const refused = pendingWork(started, "refused");
    const error = await gate.run(refused.work).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("SERVICE_UNAVAILABLE");
    expect((error as TRPCError).message).toBe("Too many modpack checks are waiting; try again shortly");
    expect(retryAfterOf(error)).toBe(3);

    for (const item of works) item.finish();
    expect(await Promise.all(answers)).toEqual(["a", "b", "c"]);
    expect(started).toEqual(["a", "b", "c"]);
    // With the queue drained, the next call is taken again.
    expect(await gate.run(async () => "later")).toBe("later");
  });
});
