/**
 * A query that takes a port's schemas is that port's call: its REST route calls the port itself
 * (`portArguments`), without tRPC's caller. Here every such query goes through tRPC's caller with
 * services that record their calls, and must have called its port once, with the arguments
 * `portArguments` gives, its answer going on to the procedure's output check.
 */
import { describe, expect, it } from "vitest";
import type { Caller, ModpackAccess } from "../src/access.js";
import { appRouter, operations, portArguments } from "../src/index.js";
import { createCallerFactory } from "../src/trpc.js";

const id = "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d";
const caller: Caller = {
  userId: "0193b1c4-5f7e-7a1b-9c2d-000000000001",
  role: "admin",
  sessionId: "session",
  tokenId: null,
  expiresAt: new Date("2030-01-01T00:00:00Z"),
};
const access = { id, name: "Pack", ownerId: caller.userId, isActive: true, version: "7" } as ModpackAccess;

/** A raw input each query's schema accepts, where `{ id }` is not one. */
const inputs: Record<string, unknown> = {
  "revisions.compare": { id, from: "1", to: "2" },
  "revisions.get": { id, number: "1" },
  "members.get": { id, userId: caller.userId },
  "webhooks.deliveries": { id, webhookId: id },
  "checks.check": { id, version: "42x" },
  "exports.status": { exportId: id },
};

const reads = operations().filter((operation) => operation.type === "query" && operation.meta.port);

describe("a query on a port's schemas is the port's call", () => {
  it("covers the reads the REST routes call directly", () => {
    expect(reads.map((read) => read.name)).toEqual(expect.arrayContaining(["modpacks.listPublic", "mods.list"]));
  });

  it.each(reads.map((read) => [read.name, read] as const))("%s", async (name, read) => {
    const port = read.meta.port!;
    const calls: { resource: string; name: string; args: unknown[] }[] = [];
    const answer = { answered: name };
    const services = new Proxy(
      {},
      {
        get: (_target, resource: string) =>
          new Proxy(
            {},
            {
              get:
                (_inner, portName: string) =>
                async (...args: unknown[]) => {
                  calls.push({ resource, name: portName, args });
                  return answer;
                },
            },
          ),
      },
    );
    const raw = inputs[name] ?? (read.takesInput ? { id } : undefined);
    const ctx = {
      caller,
      services: services as never,
      requestId: "test",
      response: {},
      classifyFailure: () => undefined,
      decided: { access },
    };
    const procedure = name
      .split(".")
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], createCallerFactory(appRouter)(ctx)) as (
      input: unknown,
    ) => Promise<unknown>;
    // The answer is no page or modpack: the output's check refuses it after the port answered.
    const outcome = await procedure(raw).then(
      (value) => ({ value }),
      (error: Error) => ({ error }),
    );
    const input = port.declaration.input ? port.declaration.input.parse(raw) : undefined;
    expect(calls).toEqual([
      {
        resource: port.resource,
        name: port.name,
        args: portArguments(port.declaration, caller, port.declaration.modpack ? access : undefined, input),
      },
    ]);
    expect(outcome).toMatchObject({ error: { message: "Output validation failed" } });
  });
});
