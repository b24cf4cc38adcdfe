import { z } from "zod";
import type { Caller, ModpackAccess } from "./access.js";
import { idParams } from "./schemas/common.js";
import { type PortDeclaration, parsers, type ServiceRegistry } from "./trpc.js";

export type { PortDeclaration };

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

/** What a port's call takes from its procedure's context. */
export interface PortContext {
  services: ServiceRegistry;
  caller: Caller | null;
  modpack?: ModpackAccess;
}

/**
 * The arguments a port takes, in order, as its declaration names them: the caller, the modpack the
 * resource rule let through, the parsed input.
 */
export function portArguments(
  declaration: PortDeclaration,
  caller: Caller | null,
  modpack: ModpackAccess | undefined,
  input: unknown,
): unknown[] {
  return [
    ...(declaration.caller ? [caller] : []),
    ...(declaration.modpack ? [modpack] : []),
    ...(declaration.input ? [input] : []),
  ];
}

/**
 * Declares a resource's ports (the input and output schemas of its procedures, which take them as
 * `schemas`), and how its procedures reach the server's implementation of them: `Services`
 * (services.ts) maps every resource to its implementation.
 */
export function resource<const Name extends string, const P extends Record<string, PortDeclaration>>(
  name: Name,
  ports: P,
) {
  const schemas = Object.entries(ports).map(([port, declaration]) => [
    port,
    parsers(declaration.input ?? (declaration.modpack ? idParams : z.void()), declaration.output).meta({
      port: { resource: name, name: port, declaration },
    }),
  ]);
  // Sound because the server's `Services`, passed as the context's services, is derived from this resource.
  const of = (ctx: { services: ServiceRegistry }) => ctx.services[name] as Implementation<P>;
  return {
    name,
    ports,
    /** The implementation in a procedure's context: the server's `Services` is built from these resources. */
    of,
    /**
     * Each port's procedure input and output parsers, for the procedure's `.concat()`; they name
     * the port in the procedure's meta.
     */
    schemas: Object.fromEntries(schemas) as { [Port in keyof P]: Parsers<P[Port]> },
    /**
     * The resolver of a procedure that is its port's call: the port with the caller, the modpack
     * and the input its declaration names. A query that takes a port's schemas resolves with it,
     * so its REST route may call the port itself (`portArguments`).
     */
    call:
      <Key extends keyof P & string>(port: Key) =>
      ({ ctx, input }: { ctx: PortContext; input: unknown }) =>
        (of(ctx)[port] as unknown as (...args: unknown[]) => ReturnType<Port<P[Key]>>)(
          ...portArguments(ports[port]!, ctx.caller, ctx.modpack, input),
        ),
  };
}
