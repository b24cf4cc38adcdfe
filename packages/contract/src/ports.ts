import type { z } from "zod";
import type { Caller, ModpackAccess, ModpackGuard } from "./access.js";

/**
 * How a procedure calls the server: what it passes besides its checked input, and the schema its
 * answer is checked against. Declared beside the procedure, from the same schemas.
 */
export interface PortDeclaration {
  /** `true`: the signed-in caller comes first; `"optional"`: the caller, or null when there is none. */
  caller?: true | "optional";
  /** The modpack the procedure's resource rule let through comes next. */
  modpack?: true;
  /** The procedure's input schema: the port takes the parsed input last. */
  input?: z.ZodType;
  /** The procedure's output schema: the port answers what it accepts. */
  output: z.ZodType;
  /** A subscription: the port takes an abort signal last and yields values until it aborts. */
  stream?: true;
}

type CallerArgument<D extends PortDeclaration> = D extends { caller: "optional" }
  ? [caller: Caller | null]
  : D extends { caller: true }
    ? [caller: Caller]
    : [];
type ModpackArgument<D extends PortDeclaration> = D extends { modpack: true } ? [modpack: ModpackAccess] : [];
type InputArgument<D extends PortDeclaration> = D extends { input: infer Input extends z.ZodType }
  ? [input: z.output<Input>]
  : [];
type Arguments<D extends PortDeclaration> = [...CallerArgument<D>, ...ModpackArgument<D>, ...InputArgument<D>];

/** The signature a declaration gives: `(caller?, modpack?, input?) => Promise<output>`. */
export type Port<D extends PortDeclaration> = D extends { stream: true }
  ? (...args: [...Arguments<D>, signal: AbortSignal]) => AsyncIterable<z.output<D["output"]>>
  : (...args: Arguments<D>) => Promise<z.output<D["output"]>>;

export type PortDeclarations = Record<string, PortDeclaration>;

/** What the server implements for a set of declarations: one function per port. */
export type Implementation<P extends PortDeclarations> = { [Name in keyof P]: Port<P[Name]> };

/** The services a procedure's context carries, by resource name. */
export interface ServiceRegistry {
  readonly modpacks: ModpackGuard;
  readonly [resource: string]: object;
}

/** One resource's ports, and how its procedures reach the server's implementation of them. */
export interface Resource<Name extends string, P extends PortDeclarations> {
  readonly name: Name;
  readonly ports: P;
  /** The implementation in a procedure's context: the server's `Services` is built from these resources. */
  of(ctx: { services: ServiceRegistry }): Implementation<P>;
}

/** Declares one port: `input` and `output` are the procedure's own schemas. */
export function port<const D extends PortDeclaration>(declaration: D): D {
  return declaration;
}

/** Declares a resource's ports; `Services` (services.ts) maps every resource to its implementation. */
export function resource<const Name extends string, const P extends PortDeclarations>(
  name: Name,
  ports: P,
): Resource<Name, P> {
  return {
    name,
    ports,
    // Sound because the server's `Services`, passed as the context's services, is derived from this resource.
    of: (ctx) => ctx.services[name] as Implementation<P>,
  };
}

export type ResourceImplementation<R> = R extends Resource<string, infer P> ? Implementation<P> : never;
