import { authRouter } from "./procedures/auth.js";
import { healthRouter } from "./procedures/health.js";
import { type Meta, router } from "./trpc.js";

export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
});

export type AppRouter = typeof appRouter;

type ProcedureRecord = Record<string, { _def: { meta?: Meta } }>;

/** The meta of the procedure at a dotted path (`modpacks.create`), if there is one. */
export function procedureMeta(path: string): Meta | undefined {
  return (appRouter._def.procedures as unknown as ProcedureRecord)[path]?._def.meta;
}

/** The meta of every procedure of the router. */
export function allProcedureMeta(): Meta[] {
  return Object.values(appRouter._def.procedures as unknown as ProcedureRecord).flatMap((procedure) =>
    procedure._def.meta ? [procedure._def.meta] : [],
  );
}

export * from "./errors.js";
export * from "./permissions.js";
export * from "./schemas/common.js";
export * from "./schemas/errors.js";
export * from "./schemas/health.js";
export * from "./schemas/session.js";
export * from "./schemas/token.js";
export type { Services } from "./services.js";
export {
  type Caller,
  type Context,
  createCallerFactory,
  type Meta,
  type SuccessStatus,
} from "./trpc.js";
