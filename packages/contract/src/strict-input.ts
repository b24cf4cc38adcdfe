import type { AnyTRPCRouter } from "@trpc/server";

/** Schema kinds a REST adapter may switch to `coerce` (`Boolean("false")` is `true`). */
const coercible = new Set(["number", "boolean", "bigint", "date"]);

interface ZodLike {
  _zod: { def: Record<string, unknown> & { type: string } };
}

function isSchema(value: unknown): value is ZodLike {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as ZodLike)._zod?.def?.type === "string"
  );
}

function lockSchema(schema: ZodLike, seen: Set<object>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = schema._zod.def;
  if (coercible.has(def.type)) {
    if (def.coerce === true) {
      throw new Error(
        "An input schema coerces its value: parse query strings explicitly (queryInt, queryBoolean) instead of z.coerce",
      );
    }
    // A getter without a setter that throws: an adapter's `def.coerce = true` is ignored.
    Object.defineProperty(def, "coerce", { get: () => false, set: () => {}, enumerable: true, configurable: false });
    return;
  }
  for (const [key, value] of Object.entries(def)) {
    if (key === "getter" && typeof value === "function") {
      const inner = (value as () => unknown)();
      if (isSchema(inner)) lockSchema(inner, seen);
    } else if (isSchema(value)) {
      lockSchema(value, seen);
    } else if (Array.isArray(value)) {
      for (const item of value) if (isSchema(item)) lockSchema(item, seen);
    } else if (typeof value === "object" && value !== null && key === "shape") {
      for (const item of Object.values(value)) if (isSchema(item)) lockSchema(item, seen);
    }
  }
}

/**
 * Makes every input schema of every procedure of the router keep its JSON type: a string where a
 * boolean or number goes is a validation error, on REST and on /trpc alike. REST adapters that
 * switch such schemas to coercion (setting `coerce` on the shared schema objects) find the switch
 * locked off. Query strings are parsed by schemas that say so explicitly (`queryInt`,
 * `queryBoolean`), never by JavaScript truthiness.
 */
export function withStrictInputs<TRouter extends AnyTRPCRouter>(router: TRouter): TRouter {
  const seen = new Set<object>();
  const procedures = router._def.procedures as Record<string, { _def: { inputs?: unknown[] } }>;
  for (const procedure of Object.values(procedures)) {
    for (const input of procedure._def.inputs ?? []) if (isSchema(input)) lockSchema(input, seen);
  }
  return router;
}
