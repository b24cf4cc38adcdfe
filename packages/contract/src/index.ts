import { adminRouter } from "./procedures/admin.js";
import { authRouter } from "./procedures/auth.js";
import { checksRouter } from "./procedures/checks.js";
import { exportsRouter } from "./procedures/exports.js";
import { healthRouter } from "./procedures/health.js";
import { importsRouter } from "./procedures/imports.js";
import { membersRouter } from "./procedures/members.js";
import { modpackModsRouter } from "./procedures/modpack-mods.js";
import { modpacksRouter } from "./procedures/modpacks.js";
import { modsRouter } from "./procedures/mods.js";
import { notificationsRouter } from "./procedures/notifications.js";
import { withStrictInputs } from "./strict-input.js";
import { type Meta, router } from "./trpc.js";

/** The whole API. REST paths match in definition order, so static paths precede parameterized ones. */
export const appRouter = withStrictInputs(
  router({
    health: healthRouter,
    auth: authRouter,
    exports: exportsRouter,
    modpacks: modpacksRouter,
    members: membersRouter,
    modpackMods: modpackModsRouter,
    checks: checksRouter,
    imports: importsRouter,
    mods: modsRouter,
    notifications: notificationsRouter,
    admin: adminRouter,
  }),
);

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

export type { Caller, ModpackAccess, ModpackGuard, ModpackNeed } from "./access.js";
export * from "./errors.js";
export * from "./permissions.js";
export type { Implementation, Port, PortDeclaration, ServiceRegistry } from "./ports.js";
export * from "./schemas/admin.js";
export * from "./schemas/check.js";
export * from "./schemas/common.js";
export * from "./schemas/errors.js";
export * from "./schemas/export.js";
export * from "./schemas/health.js";
export * from "./schemas/import.js";
export * from "./schemas/member.js";
export * from "./schemas/mod.js";
export * from "./schemas/modpack.js";
export * from "./schemas/notification.js";
export * from "./schemas/pagination.js";
export * from "./schemas/session.js";
export * from "./schemas/token.js";
export * from "./schemas/workshop.js";
export type { Services } from "./services.js";
export {
  type Context,
  createCallerFactory,
  createResponder,
  type ErrorResponseBody,
  type Meta,
  type Responder,
  type ShapedIssue,
  type SuccessStatus,
  setErrorAnswer,
} from "./trpc.js";
