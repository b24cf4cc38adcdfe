import { resource } from "../ports.js";
import { messageSchema } from "../schemas/common.js";
import {
  addMemberInput,
  addMemberResultSchema,
  invitationListSchema,
  invitationPathInput,
  memberListSchema,
  memberPathInput,
  memberSchema,
  updateMemberInput,
} from "../schemas/member.js";
import { operation, router } from "../trpc.js";

const tags = ["Members"];

export const memberPorts = resource("members", {
  list: { modpack: true, output: memberListSchema },
  /** 404 when the user is not an active member. */
  get: { modpack: true, input: memberPathInput, output: memberSchema },
  /** By user id: a membership; by email: an invitation, the same answer whether or not the email has an account. */
  add: { caller: true, modpack: true, input: addMemberInput, output: addMemberResultSchema },
  update: { modpack: true, input: updateMemberInput, output: memberSchema },
  remove: { modpack: true, input: memberPathInput, output: messageSchema },
  /** Pending invitations (not claimed, not expired), newest first. */
  listInvitations: { modpack: true, output: invitationListSchema },
  /** 404 when no invitation to the email is pending. */
  withdrawInvitation: { modpack: true, input: invitationPathInput, output: messageSchema },
});
const { of: service, schemas, call } = memberPorts;

export const membersRouter = router({
  list: operation({
    method: "GET",
    path: "/modpacks/{id}/members",
    tags,
    summary: "List members",
    description: "The modpack's active members with their permissions, oldest first.",
    operationId: "listMembers",
    success: "The modpack's members and their permissions.",
    permission: "modpack.read",
    modpackAccess: "read",
  })
    .concat(schemas.list)
    .query(call("list")),
  get: operation({
    method: "GET",
    path: "/modpacks/{id}/members/{userId}",
    tags,
    summary: "Read a member",
    description:
      "One active member of the modpack with their permissions, as the list shows them. 404 if the user is not an active member.",
    operationId: "getMember",
    success: "The member and their permissions.",
    permission: "modpack.read",
    modpackAccess: "read",
  })
    .concat(schemas.get)
    .query(call("get")),
  add: operation({
    method: "POST",
    path: "/modpacks/{id}/members",
    tags,
    summary: "Add a member",
    description:
      "Shares the modpack with a user, with the given permissions.\n\nBy `userId`: the user becomes a member at once and is notified (a removed member is re-activated); 409 if already an active member; 404 if no such user; 422 for the owner.\n\nBy `email`: the answer is always the same `Invitation`, whether or not the address belongs to an account, so it reveals nothing about who has one. The invitation becomes a membership (with a notification) when someone signs in with that email, verified by the identity provider; inviting the same email again replaces its permissions and renews it. An invitation expires `INVITATION_EXPIRY_DAYS` (14 by default) after it was made or last renewed; the owner lists pending ones with `GET /modpacks/{id}/invitations` and withdraws one with `DELETE /modpacks/{id}/invitations?email=`.\n\nAdding members is rate-limited per caller (`RATE_LIMIT_MEMBER_ADD_PER_MINUTE`).",
    operationId: "addMember",
    success: "The member was added (or re-activated) with the given permissions.",
    permission: "modpack.manager-members",
    modpackAccess: "owner",
    successStatus: 201,
    errors: [409, 422],
    rateLimit: "memberAdd",
  })
    .concat(schemas.add)
    .mutation(({ ctx, input }) => service(ctx).add(ctx.caller, ctx.modpack, input)),
  update: operation({
    method: "PATCH",
    path: "/modpacks/{id}/members/{userId}",
    tags,
    summary: "Change a member's permissions",
    description: "Replaces an active member's permissions; the member is notified. 404 if not an active member.",
    operationId: "updateMember",
    success: "The member with the new permissions.",
    permission: "modpack.manager-members",
    modpackAccess: "owner",
  })
    .concat(schemas.update)
    .mutation(({ ctx, input }) => service(ctx).update(ctx.modpack, input)),
  remove: operation({
    method: "DELETE",
    path: "/modpacks/{id}/members/{userId}",
    tags,
    summary: "Remove a member",
    description: "Ends a member's access at once; the member is notified. 404 if not an active member.",
    operationId: "removeMember",
    success: "The member was removed.",
    permission: "modpack.manager-members",
    modpackAccess: "owner",
  })
    .concat(schemas.remove)
    .mutation(({ ctx, input }) => service(ctx).remove(ctx.modpack, input)),
  listInvitations: operation({
    method: "GET",
    path: "/modpacks/{id}/invitations",
    tags,
    summary: "List pending invitations",
    description:
      "The invitations by email that no one has claimed yet and that have not expired, newest first. Owner only: the addresses are the owner's to see, not the members'. Claimed, withdrawn and expired invitations are not listed.",
    operationId: "listInvitations",
    success: "The pending invitations.",
    permission: "modpack.manager-members",
    modpackAccess: "owner",
  })
    .concat(schemas.listInvitations)
    .query(call("listInvitations")),
  withdrawInvitation: operation({
    method: "DELETE",
    path: "/modpacks/{id}/invitations",
    tags,
    summary: "Withdraw an invitation",
    description:
      "Deletes the pending invitation to `email`, a query parameter (compared case-insensitively), so a later sign-in with that email no longer becomes a membership. Owner only. 404 if there is no pending invitation for the email (never made, already claimed, withdrawn or expired). Nobody is notified: the invitation never reached an account.",
    operationId: "withdrawInvitation",
    success: "The invitation was withdrawn.",
    permission: "modpack.manager-members",
    modpackAccess: "owner",
  })
    .concat(schemas.withdrawInvitation)
    .mutation(({ ctx, input }) => service(ctx).withdrawInvitation(ctx.modpack, input)),
});
