import { initTRPC } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../src/index.js";
import { queryBoolean, queryInt } from "../src/schemas/pagination.js";
import { withStrictInputs } from "../src/strict-input.js";

const t = initTRPC.create();

describe("withStrictInputs", () => {
  it("locks coercion off on every boolean, number and date of an input, nested and shared", () => {
    const shared = z.boolean();
    const input = z.object({
      flag: shared,
      nested: z.object({ count: z.number().int().optional(), when: z.date().nullable() }),
      list: z.array(z.object({ on: shared })),
      either: z.union([z.number(), z.string()]),
    });
    const router = withStrictInputs(t.router({ a: t.procedure.input(input).mutation(() => null) }));
    expect(router).toBeDefined();
    // What a REST adapter does to shared schema objects; the lock ignores it.
    for (const schema of [shared, input.shape.nested.shape.count.unwrap(), input.shape.either.options[0]]) {
      (schema._zod.def as { coerce?: boolean }).coerce = true;
    }
    const result = input.safeParse({
      flag: "false",
      nested: { count: "3", when: "2026-01-01" },
      list: [{ on: "true" }],
      either: "1",
    });
    expect(result.success).toBe(false);
    const paths = (result.error?.issues ?? []).map((issue) => issue.path.join("."));
    expect(paths).toEqual(["flag", "nested.count", "nested.when", "list.0.on"]);
  });

  it("refuses an input that coerces on purpose", () => {
    const input = z.object({ n: z.coerce.number() });
    expect(() => withStrictInputs(t.router({ a: t.procedure.input(input).query(() => null) }))).toThrow(/coerce/);
  });

  it("is applied to the whole API", () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.ZodType[] } }>;
    const create = procedures["modpacks.create"]?._def.inputs[0] as z.ZodObject;
    const isPublic = (create.shape.isPublic as z.ZodDefault<z.ZodBoolean>).unwrap();
    (isPublic._zod.def as { coerce?: boolean }).coerce = true;
    expect(create.safeParse({ name: "x", isPublic: "false" }).success).toBe(false);
  });
});

describe("query parameters", () => {
  const page = queryInt({ min: 1, max: 100, fallback: 1, description: "page" });
  it.each([
    ["7", 7],
    [7, 7],
    ["100", 100],
    [undefined, 1],
  ])("reads %j as %j", (value, expected) => {
    expect(page.parse(value)).toBe(expected);
  });
  it.each([["0"], ["101"], ["1e1"], [" 2"], ["0x10"], ["2.0"], ["+3"], ["-1"], ["true"], [true], ["1,2"], [2.5]])(
    "refuses %j",
    (value) => {
      expect(page.safeParse(value).success).toBe(false);
    },
  );
  it("says what is wrong", () => {
    expect(page.safeParse("0").error?.issues[0]?.message).toBe("Must be 1 or more");
    expect(page.safeParse("101").error?.issues[0]?.message).toBe("Must be 100 or less");
    expect(page.safeParse("abc").error?.issues[0]?.message).toBe("Must be a whole number");
  });
  it.each([
    ["true", true],
    ["false", false],
    [true, true],
    [undefined, undefined],
  ])("reads the boolean %j as %j", (value, expected) => {
    expect(queryBoolean.parse(value)).toBe(expected);
  });
  it.each([["1"], ["0"], ["yes"], ["False"], ["TRUE"], [1]])("refuses the boolean %j", (value) => {
    expect(queryBoolean.safeParse(value).success).toBe(false);
  });
});
