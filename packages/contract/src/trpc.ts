import { initTRPC } from "@trpc/server";
import type { OpenApiMeta, OpenApiMethod } from "trpc-to-openapi";
import { noPermission, unauthorized } from "./errors.js";
import { type Permission, type Role, roleHasPermission } from "./permissions.js";
import type { Services } from "./services.js";

/** Who is calling: resolved by the server from the session cookie or a Bearer token. */
export interface Caller {
  userId: string;
  role: Role;
  /** The session behind the call, when it came with a session token. */
  sessionId: string | null;
  /** The API token behind the call, when it came with one. */
  tokenId: string | null;
  /** When the session or token expires (sessions slide forward with each request). */
  expiresAt: Date;
}

export interface Context {
  caller: Caller | null;
  services: Services;
  requestId: string;
}

export type SuccessStatus = 200 | 201 | 202 | 204;

export type Meta = OpenApiMeta<{
  /** The role permission the procedure needs (section 5.4); checked before anything else. */
  permission?: Permission;
  /** The HTTP status of a successful REST call. */
  successStatus?: SuccessStatus;
  /** Error statuses the operation can answer with, besides the ones implied by auth and input. */
  errors?: number[];
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

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const issues = error.code === "BAD_REQUEST" ? issuesOf(error.cause) : undefined;
      const internal = error.code === "INTERNAL_SERVER_ERROR";
      const { stack: _stack, ...data } = shape.data;
      return {
        ...shape,
        message: internal ? "Internal server error" : issues ? "Invalid input" : shape.message,
        data: { ...data, ...(issues ? { issues } : {}) },
      };
    },
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;

/** Anyone may call; `ctx.caller` is filled in when the request carries valid credentials. */
export const publicProcedure = t.procedure;

/** A signed-in caller holding the permission declared in the procedure's meta. */
export const protectedProcedure = t.procedure.use(({ ctx, meta, next }) => {
  const caller = ctx.caller;
  if (!caller) throw unauthorized();
  if (meta?.permission && !roleHasPermission(caller.role, meta.permission)) throw noPermission();
  return next({ ctx: { ...ctx, caller } });
});

interface OperationOptions {
  method: OpenApiMethod;
  path: `/${string}`;
  tags: string[];
  summary: string;
  /** What the operation does and who may call it. */
  description: string;
  operationId: string;
  permission?: Permission;
  successStatus?: SuccessStatus;
  errors?: number[];
  /** Public operations need no credentials. */
  public?: boolean;
}

/** Builds a procedure's meta: the REST route, its documentation and its permission, in one place. */
export function operation(options: OperationOptions): Meta {
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
      description: `${options.description}\n\n${access}`,
      operationId: options.operationId,
      protect: !options.public,
    },
  };
  if (options.permission) meta.permission = options.permission;
  if (options.successStatus) meta.successStatus = options.successStatus;
  if (options.errors) meta.errors = options.errors;
  return meta;
}
