import { z } from "zod";
import { memberPermissions } from "../permissions.js";
import { exampleId, exampleTime, timestamp, uuid } from "./common.js";

export const memberPermissionList = z
  .array(z.enum(memberPermissions))
  .min(1)
  .max(memberPermissions.length)
  .refine((list) => new Set(list).size === list.length, { message: "Permissions must not repeat" })
  .meta({
    uniqueItems: true,
    description: "What the member may do: `read`, `add-mod`, `remove-mod`, `import`, `configure`; each at most once",
    example: ["read", "add-mod"],
  });

export const memberSchema = z
  .object({
    userId: uuid,
    name: z.string(),
    image: z.string(),
    permission: z.array(z.enum(memberPermissions)).max(memberPermissions.length),
    isActive: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: "Member",
    example: {
      userId: exampleId,
      name: "Kate",
      image: "",
      permission: ["read", "add-mod"],
      isActive: true,
      createdAt: exampleTime,
      updatedAt: exampleTime,
    },
  });

export const invitationSchema = z
  .object({
    email: z.string(),
    permission: z.array(z.string().max(20)).max(memberPermissions.length),
    status: z.literal("invited"),
    createdAt: timestamp,
    expiresAt: timestamp.meta({
      description:
        "When the invitation stops being claimable (`INVITATION_EXPIRY_DAYS` after it was made or last renewed, 14 by default); expired invitations are deleted by the maintenance job",
    }),
  })
  .meta({
    id: "Invitation",
    description:
      "An invitation by email: it becomes a membership, with these permissions, when someone signs in with that (verified) email before it expires.",
    example: {
      email: "baldspot@example.com",
      permission: ["read", "add-mod"],
      status: "invited",
      createdAt: "2026-11-21T12:00:00.000Z",
      expiresAt: "2026-12-05T12:00:00.000Z",
    },
  });

export const invitationListSchema = z.object({ invitations: z.array(invitationSchema) }).meta({ id: "InvitationList" });

const email = z.email({ message: "Must be an email address" }).max(320);

export const invitationPathInput = z.object({
  id: uuid,
  // The address the add-member example invites, so the two examples work one after the other.
  email: email.meta({ example: "baldspot@example.com" }),
});

export const addMemberResultSchema = z.union([memberSchema, invitationSchema]);

export const memberListSchema = z.object({ members: z.array(memberSchema) }).meta({ id: "MemberList" });

export const addMemberInput = z
  .object({
    id: uuid,
    userId: uuid.optional().meta({ description: "The user to add; or give `email`" }),
    email: email
      .optional()
      .meta({ description: "The user to add, by email; or give `userId`", example: "baldspot@example.com" }),
    permission: memberPermissionList,
  })
  .refine((input) => (input.userId === undefined) !== (input.email === undefined), {
    message: "Give exactly one of userId or email",
    path: ["userId"],
  });

export const memberPathInput = z.object({ id: uuid, userId: uuid });
export const updateMemberInput = memberPathInput.extend({ permission: memberPermissionList });

export type Member = z.infer<typeof memberSchema>;
export type Invitation = z.infer<typeof invitationSchema>;
