import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta, OpenApiMethod } from "trpc-to-openapi";
import { z } from "zod";
import type { Caller, ModpackNeed } from "./access.js";
import { noPermission, unauthorized } from "./errors.js";
import { type Permission, roleHasPermission } from "./permissions.js";
import type { ServiceRegistry } from "./ports.js";
import type { ErrorBody } from "./schemas/errors.js";

export type SuccessStatus = 200 | 201 | 202 | 204;

/**
 * Lets a procedure declare this call's success status (`ctx.respond.status(200)`), when it is not the
 * operation's `successStatus`: a create that found the thing already there answers 200. One per call,
 * made with its context (`createResponder`); the REST adapter answers `ctx.respond.declared`.
 */
export interface Responder {
  status(status: SuccessStatus): void;
  readonly declared: SuccessStatus | undefined;
}

export function createResponder(): Responder {
  let declared: SuccessStatus | undefined;
  return {
    status(status) {
      declared = status;
    },
    get declared() {
      return declared;
    },
  };
}

export interface Context {
  caller: Caller | null;
  services: ServiceRegistry;
  requestId: string;
  respond: Responder;
}

export type Meta = OpenApiMeta<{
  /** The role permission the procedure needs (see permissions.ts); checked before anything else. */
  permission?: Permission;
  /** The HTTP status of a successful REST call. */
  successStatus?: SuccessStatus;
  /** Error statuses the operation can answer with, besides the ones implied by auth and input. */
  errors?: number[];
  /** The resource rule on the modpack named by the input's `id`, checked before the input is parsed. */
  modpackAccess?: ModpackNeed;
  /** A create's 200 (the thing was already there, `created: false`), in words. */
  alreadyThere?: string;
}>;

export interface ShapedIssue {
  path: string;
  message: string;
}

function issuesOf(cause: unknown): ShapedIssue[] | undefined {
  if (typeof cause !== "object" || cause === null || !("issues" in cause)) return undefined;
  const issues = (cause as { issues: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((issue: { path?: PropertyKey[]; message?: string }) => ({
    path: (issue.path ?? []).map(String).join("."),
    message: issue.message ?? "Invalid value",
  }));
}

/**
 * The body the service answers for a failed call, the same on REST and /trpc:
 * `{ error: { message, code, issues? } }`, or `{ message }` for the 401 and the role-permission 403.
 */
export type ErrorResponseBody = ErrorBody | { message: string };

const answers = new WeakMap<TRPCError, { status: number; body: ErrorResponseBody }>();

/**
 * Records what the server answers for an error, where it describes every error (its status, e.g.
 * 503 for a database outage, and its body); a /trpc error carries them as `data.httpStatus` and
 * `data.body`, so a client reads the same body on REST and /trpc.
 */
export function setErrorAnswer(error: TRPCError, status: number, body: ErrorResponseBody): void {
  answers.set(error, { status, body });
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const issues = error.code === "BAD_REQUEST" ? issuesOf(error.cause) : undefined;
      const internal = error.code === "INTERNAL_SERVER_ERROR";
      const { stack: _stack, ...data } = shape.data;
      const answer = answers.get(error);
      return {
        ...shape,
        message: internal ? "Internal server error" : issues ? "Invalid input" : shape.message,
        data: {
          ...data,
          ...(issues ? { issues } : {}),
          ...(answer ? { httpStatus: answer.status, body: answer.body } : {}),
        },
      };
    },
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

/** Anyone may call; `ctx.caller` is filled in when the request carries valid credentials. */
export const publicProcedure = t.procedure;

/** A signed-in caller holding the permission declared in the procedure's meta. */
export const protectedProcedure = publicProcedure.use(({ ctx, meta, next }) => {
  const caller = ctx.caller;
  if (!caller) throw unauthorized();
  if (meta?.permission && !roleHasPermission(caller.role, meta.permission)) throw noPermission();
  return next({ ctx: { ...ctx, caller } });
});

const modpackIdInput = z.object({ id: z.uuid({ message: "Must be a UUID" }) });

/**
 * Loads the modpack named by the raw input's `id` and applies the procedure's resource rule, so a
 * missing modpack (404) or a refused caller (403) is answered before the body is validated (400).
 */
const guardModpack = t.middleware(async ({ ctx, meta, getRawInput, next }) => {
  const need = meta?.modpackAccess;
  if (!need) throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "modpackAccess missing from meta" });
  const raw = await getRawInput();
  const parsed = modpackIdInput.safeParse(raw);
  if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", message: "Invalid input", cause: parsed.error });
  const modpack = await ctx.services.modpacks.authorize(ctx.caller, parsed.data.id, need);
  return next({ ctx: { modpack } });
});

/** Rewrites the raw input before it is parsed (e.g. an accepted second spelling of a field). */
export const rewriteInput = (rewrite: (raw: unknown) => unknown) =>
  t.middleware(async ({ getRawInput, next }) => next({ getRawInput: async () => rewrite(await getRawInput()) }));

/** A public procedure on one modpack; `ctx.modpack` is the modpack the rule let through. */
export const publicModpackProcedure = publicProcedure.use(guardModpack);
/** A signed-in procedure on one modpack; `ctx.modpack` is the modpack the rule let through. */
export const modpackProcedure = protectedProcedure.use(guardModpack);

interface OperationOptions {
  method: OpenApiMethod;
  path: `/${string}`;
  tags: string[];
  summary: string;
  /** What the operation does and who may call it. */
  description: string;
  /** The success response, in words. */
  success?: string;
  /** For a create answering 201: the 200 it answers instead when the thing was already there, in words. */
  alreadyThere?: string;
  operationId: string;
  permission?: Permission;
  successStatus?: SuccessStatus;
  errors?: number[];
  /** Public operations need no credentials. */
  public?: boolean;
  modpackAccess?: ModpackNeed;
}

/** Builds a procedure's meta: the REST route, its documentation and its permission, in one place. */
export function operation(options: OperationOptions): Meta {
  const rule = options.modpackAccess ? modpackRuleText[options.modpackAccess] : "";
  const access = options.public
    ? "Public: no credentials needed."
    : options.permission
      ? `Requires a signed-in caller (session cookie or Bearer token) whose role holds \`${options.permission}\`.`
      : "Requires a signed-in caller (session cookie or Bearer token).";
  const meta: Meta = {
    openapi: {
      method: options.method,
      path: options.path,
      tags: options.tags,
      summary: options.summary,
      description: `${options.description}\n\n${access}${rule ? ` ${rule}` : ""}`,
      operationId: options.operationId,
      protect: !options.public,
      ...(options.success ? { successDescription: options.success } : {}),
    },
  };
  if (options.permission) meta.permission = options.permission;
  if (options.successStatus) meta.successStatus = options.successStatus;
  if (options.alreadyThere) meta.alreadyThere = options.alreadyThere;
  if (options.modpackAccess) {
    meta.modpackAccess = options.modpackAccess;
    meta.errors = [...new Set([...(options.errors ?? []), 404, ...(options.modpackAccess === "public" ? [] : [403])])];
  } else if (options.errors) {
    meta.errors = options.errors;
  }
  return meta;
}

const modpackRuleText: Record<ModpackNeed, string> = {
  public: "Only public, active modpacks are visible here; any other id answers 404.",
  read: "The modpack must be yours, shared with you, or public (403 `Access denied` otherwise); an archived modpack is 404 to everyone but its owner.",
  owner: "Only the modpack's owner may do this (403 `Access denied` otherwise).",
  "add-mod": "The owner, or a member holding `add-mod` (403 `Access denied` otherwise).",
  "remove-mod": "The owner, or a member holding `remove-mod` (403 `Access denied` otherwise).",
  import: "The owner, or a member holding `import` (403 `Access denied` otherwise).",
  configure: "The owner, or a member holding `configure` (403 `Access denied` otherwise).",
};
