import { z } from "zod";
import type { Caller, ModpackAccess } from "./access.js";
import { idParams } from "./schemas/common.js";
import { parsers, type ServiceRegistry } from "./trpc.js";

/**
 * How a procedure calls the server: what it passes besides its checked input, and the schema its
 * answer is checked against. The one place a procedure's schemas are written: the procedure takes
 * them from here with `.concat(schemas.<port>)`.
 */
export interface PortDeclaration {
  /** `true`: the signed-in caller comes first; `"optional"`: the caller, or null when there is none. */
  caller?: true | "optional";
  /** The modpack the procedure's resource rule let through comes next. */
  modpack?: true;
  /**
   * The procedure's input schema: the port takes the parsed input last. Without it, a procedure on
   * one modpack takes the modpack's `{ id }` (the port gets the modpack instead), any other nothing.
   */
  input?: z.ZodType;
  /** The procedure's output schema: the port answers what it accepts. */
  output: z.ZodType;
  /** A subscription: the port takes an abort signal last and yields values until it aborts. */
  stream?: true;
}

type Arguments<D extends PortDeclaration> = [
  ...(D extends { caller: "optional" } ? [caller: Caller | null] : D extends { caller: true } ? [caller: Caller] : []),
  ...(D extends { modpack: true } ? [modpack: ModpackAccess] : []),
  ...(D extends { input: infer Input extends z.ZodType } ? [input: z.output<Input>] : []),
];

/** The signature a declaration gives: `(caller?, modpack?, input?) => Promise<output>`. */
export type Port<D extends PortDeclaration> = D extends { stream: true }
  ? (...args: [...Arguments<D>, signal: AbortSignal]) => AsyncIterable<z.output<D["output"]>>
  : (...args: Arguments<D>) => Promise<z.output<D["output"]>>;

/** What the server implements for a set of declarations: one function per port. */
export type Implementation<P extends Record<string, PortDeclaration>> = { [Name in keyof P]: Port<P[Name]> };

type ProcedureInput<D extends PortDeclaration> = D extends { input: infer Input extends z.ZodType }
  ? Input
  : D extends { modpack: true }
    ? typeof idParams
    : z.ZodVoid;

/** The input and output parsers of a port's procedure, as `parsers` makes them. */
type Parsers<D extends PortDeclaration> =
  ProcedureInput<D> extends infer Input extends z.ZodType ? ReturnType<typeof parsers<Input, D["output"]>> : never;

/**
 * Declares a resource's ports (the input and output schemas of its procedures, which take them as
 * `schemas`), and how its procedures reach the server's implementation of them: `Services`
 * (services.ts) maps every resource to its implementation.
 */
export function resource<const Name extends string, const P extends Record<string, PortDeclaration>>(
  name: Name,
  ports: P,
) {
  const schemas = Object.entries(ports).map(([port, { input, modpack, output }]) => [
    port,
    parsers(input ?? (modpack ? idParams : z.void()), output),
  ]);
  return {
    name,
    ports,
    /** The implementation in a procedure's context: the server's `Services` is built from these resources. */
    // Sound because the server's `Services`, passed as the context's services, is derived from this resource.
    of: (ctx: { services: ServiceRegistry }) => ctx.services[name] as Implementation<P>,
    /** Each port's procedure input and output parsers, for the procedure's `.concat()`. */
    schemas: Object.fromEntries(schemas) as { [Port in keyof P]: Parsers<P[Port]> },
  };
}
