import { z } from "zod";
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
import { revisionsRouter } from "./procedures/revisions.js";
import { serverStartsRouter } from "./procedures/server-starts.js";
import { webhooksRouter } from "./procedures/webhooks.js";
import { type Meta, router } from "./trpc.js";

/** The whole API. */
export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  exports: exportsRouter,
  modpacks: modpacksRouter,
  members: membersRouter,
  modpackMods: modpackModsRouter,
  checks: checksRouter,
  revisions: revisionsRouter,
  serverStarts: serverStartsRouter,
  imports: importsRouter,
  mods: modsRouter,
  notifications: notificationsRouter,
  webhooks: webhooksRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;

/** A procedure of the router: its dotted name (`modpacks.create`), its kind and its meta. */
export interface Operation {
  name: string;
  type: "query" | "mutation" | "subscription";
  meta: Meta;
  /** False when the procedure takes no input (`z.void()`): whatever a request carries is not read. */
  takesInput: boolean;
}

/** Every procedure of the router with its meta, in the router's order. */
export function operations(): Operation[] {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { type: Operation["type"]; meta?: Meta; inputs: unknown[] } }
  >;
  return Object.entries(procedures).map(([name, { _def }]) => ({
    name,
    type: _def.type,
    meta: _def.meta ?? {},
    takesInput: _def.inputs.length > 0 && !(_def.inputs[0] instanceof z.ZodVoid),
  }));
}

export type { Caller, ModpackAccess, ModpackGuard, ModpackNeed } from "./access.js";
export { callerHasScope } from "./access.js";
export { type Admission, admissionOf, admissionText, admit } from "./admission.js";
export * from "./errors.js";
export * from "./permissions.js";
export { type Implementation, type Port, type PortDeclaration, portArguments } from "./ports.js";
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
export * from "./schemas/revision.js";
export * from "./schemas/server-file.js";
export * from "./schemas/server-start.js";
export * from "./schemas/session.js";
export * from "./schemas/token.js";
export * from "./schemas/webhook.js";
export * from "./schemas/workshop.js";
export type { Services } from "./services.js";
export {
  authorizeModpackInput,
  type CacheRule,
  type CallResponse,
  type ClassifyFailure,
  type Context,
  createCallerFactory,
  type Meta,
  type PortOfProcedure,
  procedureAdmission,
  type RateLimitGroup,
  type ServiceRegistry,
  type SuccessStatus,
} from "./trpc.js";
