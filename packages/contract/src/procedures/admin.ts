import { resource } from "../ports.js";
import {
  adminStatsSchema,
  adminUserListInput,
  adminUserPageSchema,
  adminUserSchema,
  updateUserRoleInput,
  verifyModpackInput,
} from "../schemas/admin.js";
import { modpackSchema } from "../schemas/modpack.js";
import { operation, router } from "../trpc.js";

const tags = ["Admin"];

export const adminPorts = resource("admin", {
  listUsers: { input: adminUserListInput, output: adminUserPageSchema },
  /** An admin cannot demote themselves. */
  updateUser: { caller: true, input: updateUserRoleInput, output: adminUserSchema },
  verifyModpack: { input: verifyModpackInput, output: modpackSchema },
  stats: { output: adminStatsSchema },
});
const { of: service, schemas, call } = adminPorts;

export const adminRouter = router({
  listUsers: operation({
    method: "GET",
    path: "/admin/users",
    tags,
    summary: "List users",
    description: "Every user, newest first, paged (default 20); `search` matches name or email.",
    operationId: "adminListUsers",
    wholeAccount: true,
    scope: "write",
    success: "A page of users, newest first, each with how many modpacks they own.",
    permission: "admin.access",
  })
    .concat(schemas.listUsers)
    .query(call("listUsers")),
  updateUser: operation({
    method: "PATCH",
    path: "/admin/users/{id}",
    tags,
    summary: "Change a user's role",
    description:
      "Sets a user's role (`user` or `admin`); it applies to their next request on every instance. Note that `ADMIN_EMAILS` grants `admin` again at the listed users' next sign-in. An admin cannot demote themselves (422).",
    operationId: "adminUpdateUser",
    wholeAccount: true,
    scope: "write",
    success: "The user with the new role.",
    permission: "admin.access",
    errors: [404, 422],
  })
    .concat(schemas.updateUser)
    .mutation(({ ctx, input }) => service(ctx).updateUser(ctx.caller, input)),
  verifyModpack: operation({
    method: "PATCH",
    path: "/admin/modpacks/{id}",
    tags,
    summary: "Verify a modpack",
    description: "Sets or clears a modpack's `isVerified` badge; the owner is notified.",
    operationId: "adminVerifyModpack",
    wholeAccount: true,
    scope: "write",
    success: "The modpack with its new verification badge.",
    permission: "admin.access",
    errors: [404],
  })
    .concat(schemas.verifyModpack)
    .mutation(({ ctx, input }) => service(ctx).verifyModpack(input)),
  stats: operation({
    method: "GET",
    path: "/admin/stats",
    tags,
    summary: "Service statistics",
    description: "Counts of users, modpacks, mods, imports and exports by status, and the job queues' depths.",
    operationId: "adminStats",
    wholeAccount: true,
    scope: "write",
    success: "Counts of users, modpacks, mods, imports and exports, and the job queues' sizes.",
    permission: "admin.access",
  })
    .concat(schemas.stats)
    .query(call("stats")),
});
