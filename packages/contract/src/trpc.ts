import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta, OpenApiMethod } from "trpc-to-openapi";
import { z } from "zod";
import type { Caller, ModpackAccess, ModpackGuard, ModpackNeed } from "./access.js";
import { type Admission, admissionOf, admissionText, admit } from "./admission.js";
import { errorAnswer } from "./errors.js";
import type { Permission, TokenScope } from "./permissions.js";

export type SuccessStatus = 200 | 201 | 202 | 204;

/**
 * What a call tells its REST route besides its answer, written by the procedure: the success status
 * when it is not the operation's `successStatus` (a create that found the thing already there answers
 * 200), and the version of what a read answered (its `ETag`). One per call, made with its context.
 */
export interface CallResponse {
  status?: SuccessStatus;
  version?: string;
}

/** Turns a failure of the server's infrastructure (a database outage, a statement timeout) into a typed error. */
export type ClassifyFailure = (cause: unknown) => TRPCError | undefined;

/** The services a procedure's context carries, by resource name (see ports.ts). */
export interface ServiceRegistry {
  readonly modpacks: ModpackGuard;
  readonly [resource: string]: object;
}

export interface Context {
  caller: Caller | null;
  services: ServiceRegistry;
  requestId: string;
  response: CallResponse;
  classifyFailure: ClassifyFailure;
  /**
   * What the REST route already settled: the caller's admission (`admit`) and, on a modpack, its
   * resource rule (`access`). The procedure's middlewares take them as they are; a `/trpc` call comes
   * without them, and its middlewares apply the same rules themselves.
   */
  decided?: { access?: ModpackAccess };
}

/** The request-rate limit an operation counts against (`general` unless it says). */
export type RateLimitGroup = "general" | "workshop" | "memberAdd" | "webhook" | "none";

/**
 * How a read is cached: `Cache-Control: <scope>, no-cache` with an `ETag`, `private` whenever the
 * request carries credentials or names one of `privateWith`'s query fields. `validator` names the
 * version that answers `If-None-Match` from one lookup before the read runs; without it the ETag is
 * the answer's hash.
 */
export interface CacheRule {
  scope: "public" | "private";
  privateWith?: string[];
  validator?: "modpack" | "mod";
}

/**
 * How a procedure calls the server (ports.ts): what it passes besides its checked input, and the
 * schema its answer is checked against. The one place a procedure's schemas are written: the
 * procedure takes them from its resource with `.concat(schemas.<port>)`.
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

/** The port whose schemas a procedure took, by resource and name, with its declaration. */
export interface PortOfProcedure {
  resource: string;
  name: string;
  declaration: PortDeclaration;
}

/**
 * What the server reads of a procedure besides its REST route: its checks, its answers, its limits.
 * A type, not an interface: tRPC's meta must be indexable by string.
 */
type Rules = {
  /** The role permission the procedure needs (see permissions.ts); checked before anything else. */
  permission?: Permission;
  /**
   * The API token scope the procedure needs, checked with the role permission: `read` for what
   * changes nothing, `write` for the rest. Without it, queries and subscriptions need `read` and
   * mutations `write`.
   */
  scope?: TokenScope;
  /**
   * The operation acts on the caller's whole account (its tokens, its notifications, `/admin`): a
   * token limited to modpacks is refused it (403 `Do not have permission`).
   */
  wholeAccount?: boolean;
  /** The HTTP status of a successful REST call. */
  successStatus?: SuccessStatus;
  /** Error statuses the operation can answer with, besides the ones implied by auth and input. */
  errors?: number[];
  /** The resource rule on the modpack named by the input's `id`, checked before the input is parsed. */
  modpackAccess?: ModpackNeed;
  /** The procedure answers the modpack's members: the resource rule's statement reads them too. */
  modpackMembers?: true;
  /** A create's 200 (the thing was already there, `created: false`), in words. */
  alreadyThere?: string;
  rateLimit?: RateLimitGroup;
  cache?: CacheRule;
  /**
   * The port the procedure's schemas belong to, set by `.concat(schemas.<port>)`. A query that takes
   * a port's schemas is that port's call (`call`, ports.ts): its REST route calls the port itself.
   */
  port?: PortOfProcedure;
};

export type Meta = OpenApiMeta<Rules>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const { status, body, issues } = errorAnswer(error);
      const { stack: _stack, ...data } = shape.data;
      return {
        ...shape,
        message: status === 500 ? "Internal server error" : issues ? "Invalid input" : shape.message,
        data: { ...data, httpStatus: status, body, ...(issues ? { issues } : {}) },
      };
    },
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

/** A failure the server classifies (a database outage) leaves as its typed error. */
function throwClassified(ctx: Context, result: { ok: true } | { ok: false; error: TRPCError }): void {
  if (!result.ok && result.error.code === "INTERNAL_SERVER_ERROR") {
    const typed = ctx.classifyFailure(result.error.cause ?? result.error);
    if (typed) throw typed;
  }
}

type ProcedureType = "query" | "mutation" | "subscription";

/** Who may call a procedure, from its meta: a signed-in caller or anyone. */
export function procedureAdmission(meta: Meta | undefined, type: ProcedureType, signedIn: boolean): Admission {
  return admissionOf(meta ?? {}, { signedIn, changes: type === "mutation" });
}

const modpackIdInput = z.object({ id: z.uuid({ message: "Must be a UUID" }) });

/**
 * Applies the procedure's resource rule to the modpack named by the raw input's `id`, before the
 * input is validated: a malformed id answers 400, a missing modpack 404, a refused caller 403.
 */
export async function authorizeModpackInput(
  services: ServiceRegistry,
  caller: Caller | null,
  meta: Meta | undefined,
  raw: unknown,
  options: { members: boolean } = { members: meta?.modpackMembers === true },
): Promise<ModpackAccess> {
  const need = meta?.modpackAccess;
  if (!need) throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "modpackAccess missing from meta" });
  const parsed = modpackIdInput.safeParse(raw);
  if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", message: "Invalid input", cause: parsed.error });
  return services.modpacks.authorize(caller, parsed.data.id, need, options);
}

/**
 * The modpack the resource rule let through: as the REST route decided it, or decided here for a
 * `/trpc` call. A read of the modpack answers what this version of its row (which its members,
 * links and mods move too) shows: its ETag.
 */
async function decideModpack(
  ctx: Context,
  caller: Caller | null,
  meta: Meta | undefined,
  getRawInput: () => Promise<unknown>,
): Promise<ModpackAccess> {
  let modpack: ModpackAccess;
  try {
    modpack = ctx.decided?.access ?? (await authorizeModpackInput(ctx.services, caller, meta, await getRawInput()));
  } catch (error) {
    throw ctx.classifyFailure(error) ?? error;
  }
  ctx.response.version = modpack.version;
  return modpack;
}

/*
 * The four kinds of procedure, each with one middleware: it takes the REST route's decisions, or
 * decides the caller's admission (and the modpack's rule) for a `/trpc` call, then runs the
 * procedure and leaves a classified failure (a database outage) as its typed error. One middleware
 * each, because tRPC copies the call's options and context at every middleware.
 */

/** The caller, if any, a public procedure's meta admits, as the REST route decided it or decided here. */
function anyCaller(ctx: Context, meta: Meta | undefined, type: ProcedureType): Caller | null {
  return ctx.decided ? ctx.caller : admit(ctx.caller, procedureAdmission(meta, type, false));
}

/** Anyone may call; `ctx.caller` is filled in when the request carries valid credentials. */
const publicProcedure = t.procedure.use(async ({ ctx, meta, type, next }) => {
  anyCaller(ctx, meta, type);
  const result = await next();
  throwClassified(ctx, result);
  return result;
});

/** The signed-in caller a procedure's meta admits, as the REST route decided it or decided here. */
function signedInCaller(ctx: Context, meta: Meta | undefined, type: ProcedureType): Caller {
  return ctx.decided && ctx.caller
    ? ctx.caller
    : admit(ctx.caller, { ...procedureAdmission(meta, type, true), signedIn: true });
}

/** A signed-in caller holding the permission declared in the procedure's meta. */
export const protectedProcedure = t.procedure.use(async ({ ctx, meta, type, next }) => {
  const result = await next({ ctx: { caller: signedInCaller(ctx, meta, type) } });
  throwClassified(ctx, result);
  return result;
});

/** A public procedure on one modpack; `ctx.modpack` is the modpack the rule let through. */
const publicModpackProcedure = t.procedure.use(async ({ ctx, meta, type, getRawInput, next }) => {
  const modpack = await decideModpack(ctx, anyCaller(ctx, meta, type), meta, getRawInput);
  const result = await next({ ctx: { modpack } });
  throwClassified(ctx, result);
  return result;
});

/** A signed-in procedure on one modpack; `ctx.modpack` is the modpack the rule let through. */
const modpackProcedure = t.procedure.use(async ({ ctx, meta, type, getRawInput, next }) => {
  const caller = signedInCaller(ctx, meta, type);
  const modpack = await decideModpack(ctx, caller, meta, getRawInput);
  const result = await next({ ctx: { caller, modpack } });
  throwClassified(ctx, result);
  return result;
});

/**
 * A procedure's input and output parsers alone, without middlewares: a procedure takes them with
 * `.concat()`, after its own checks, as if it had called `.input()` and `.output()` there.
 */
export const parsers = <Input extends z.ZodType, Output extends z.ZodType>(input: Input, output: Output) =>
  t.procedure.input(input).output(output);

/** Rewrites the raw input before it is parsed (e.g. an accepted second spelling of a field). */
export const rewriteInput = (rewrite: (raw: unknown) => unknown) =>
  t.middleware(async ({ getRawInput, next }) => next({ getRawInput: async () => rewrite(await getRawInput()) }));

interface OperationOptions extends Rules {
  method: OpenApiMethod;
  path: `/${string}`;
  tags: string[];
  summary: string;
  /** What the operation does and who may call it. */
  description: string;
  /** The success response, in words. */
  success?: string;
  operationId: string;
  /** Public operations need no credentials; any other needs a signed-in caller. */
  public?: boolean;
}

/** The procedure an operation's options call for: public or signed-in, on one modpack or not. */
type ProcedureFor<O extends OperationOptions> = O extends { modpackAccess: ModpackNeed }
  ? O extends { public: true }
    ? typeof publicModpackProcedure
    : typeof modpackProcedure
  : O extends { public: true }
    ? typeof publicProcedure
    : typeof protectedProcedure;

/**
 * A REST operation's procedure: the checks its options call for (`public`, `modpackAccess`) and its
 * meta, which holds the REST route, its documentation and its rules in one place. The token scope
 * is the method's (`read` for GET, `write` otherwise) unless the options name one.
 */
export function operation<O extends OperationOptions>(options: O): ProcedureFor<O> {
  const { method, path, tags, summary, description, success, operationId, public: isPublic, ...rules } = options;
  const admission = admissionOf(rules, { signedIn: !isPublic, changes: method !== "GET" });
  const { scope } = admission;
  const resourceRule = rules.modpackAccess ? modpackRuleText[rules.modpackAccess] : undefined;
  const access = admissionText(admission, { ...(resourceRule ? { resourceRule } : {}), readsCredentials: true });
  const meta: Meta = {
    ...rules,
    scope,
    openapi: {
      method,
      path,
      tags,
      summary,
      description: `${description}\n\n${access}`,
      operationId,
      protect: !isPublic,
      ...(success ? { successDescription: success } : {}),
    },
  };
  if (rules.modpackAccess) {
    // A public operation on a private modpack asks an anonymous caller to sign in: 401.
    const anonymous = isPublic && rules.modpackAccess === "read" ? [401] : [];
    meta.errors = [
      ...new Set([...(rules.errors ?? []), ...anonymous, 404, ...(rules.modpackAccess === "public" ? [] : [403])]),
    ];
  }
  const procedure = rules.modpackAccess
    ? isPublic
      ? publicModpackProcedure
      : modpackProcedure
    : isPublic
      ? publicProcedure
      : protectedProcedure;
  return procedure.meta(meta) as ProcedureFor<O>;
}

const modpackRuleText: Record<ModpackNeed, string> = {
  public: "Only public, active modpacks are visible here; any other id answers 404.",
  read: "The modpack must be yours, shared with you, or public (without credentials 401 `Unauthorized`, otherwise 403 `Access denied`); an archived modpack is 404 to everyone but its owner.",
  member: "Only the modpack's owner and its members, even on a public modpack (403 `Access denied` otherwise).",
  owner: "Only the modpack's owner may do this (403 `Access denied` otherwise).",
  "add-mod": "The owner, or a member holding `add-mod` (403 `Access denied` otherwise).",
  "remove-mod": "The owner, or a member holding `remove-mod` (403 `Access denied` otherwise).",
  import: "The owner, or a member holding `import` (403 `Access denied` otherwise).",
  configure: "The owner, or a member holding `configure` (403 `Access denied` otherwise).",
  restore: "The owner, or a member holding `add-mod`, `remove-mod` and `configure` (403 `Access denied` otherwise).",
};
