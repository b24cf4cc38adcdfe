import { serviceBusy, tooManyRequests } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { describeError } from "./errors.js";

/** An error as pg raises it: a message and the SQLSTATE code. */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

/** As a procedure's failure reaches the error handler: an internal error carrying the cause. */
const failed = (cause: Error) =>
  new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error", cause });

describe("describeError: database failures", () => {
  const transient: [string, Error][] = [
    ["a statement timeout", pgError("57014", "canceling statement due to statement timeout")],
    ["a deadlock", pgError("40P01", "deadlock detected")],
    ["a serialization failure", pgError("40001", "could not serialize access due to concurrent update")],
    ["a terminated connection", pgError("57P01", "terminating connection due to administrator command")],
    ["a refused connection", pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["a pool wait past its timeout", new Error("timeout exceeded when trying to connect")],
    ["a named read a migration made stale", pgError("0A000", "cached plan must not change result type")],
  ];
  it.each(transient)("answers %s with 503 and Retry-After", (_label, cause) => {
    expect(describeError(failed(cause))).toMatchObject({ status: 503, retryAfter: 1 });
  });

  const permanent: [string, Error][] = [
    ["a unique violation", pgError("23505", "duplicate key value violates unique constraint")],
    ["a foreign key violation", pgError("23503", "insert or update violates foreign key constraint")],
    ["a syntax error", pgError("42601", "syntax error at or near")],
    ["another unsupported feature", pgError("0A000", "cannot insert into column of view")],
    ["a plain error", new Error("something else")],
  ];
  it.each(permanent)("answers %s with 500 and no Retry-After", (_label, cause) => {
    const described = describeError(failed(cause));
    expect(described.status).toBe(500);
    expect(described.retryAfter).toBeUndefined();
  });
});

describe("describeError: the service's own refusals", () => {
  const refusals: [string, TRPCError, number, number][] = [
    ["too much of a caller's work queued", tooManyRequests("You already have 3 imports", 30), 429, 30],
    ["too many calls waiting for costly work", serviceBusy("Too many modpack checks are waiting", 2), 503, 2],
  ];
  it.each(refusals)("answers %s with its status and Retry-After", (_label, error, status, retryAfter) => {
    expect(describeError(error)).toMatchObject({ status, retryAfter });
  });
});
