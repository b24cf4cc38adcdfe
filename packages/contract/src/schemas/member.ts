import { z } from "zod";
import { memberPermissions } from "../permissions.js";
import { timestamp, uuid } from "./common.js";

export const memberPermissionList = z
  .array(z.enum(memberPermissions))
  .min(1)
  .max(memberPermissions.length)
  .refine((list) => new Set(list).size === list.length, { message: "Permissions must not repeat" })
  .meta({
    description: "What the member may do: `read`, `add-mod`, `remove-mod`, `import`, `configure`",
    example: ["read", "add-mod"],
  });

export const memberSchema = z
  .object({
    userId: uuid,
    name: z.string(),
    image: z.string(),
    permission: z.array(z.string()),
    isActive: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: "Member",
    example: {
      userId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d",
      name: "Kate",
      image: "",
      permission: ["read", "add-mod"],
      isActive: true,
      createdAt: "2026-11-21T12:00:00.000Z",
      updatedAt: "2026-11-21T12:00:00.000Z",
    },
  });

export const memberListSchema = z.object({ members: z.array(memberSchema) }).meta({ id: "MemberList" });

export const addMemberInput = z
  .object({
    id: uuid,
    userId: uuid.optional().meta({ description: "The user to add; or give `email`" }),
    email: z.email().max(320).optional().meta({ description: "The user to add, by email; or give `userId`" }),
    permission: memberPermissionList,
  })
  .refine((input) => (input.userId === undefined) !== (input.email === undefined), {
    message: "Give exactly one of userId or email",
    path: ["userId"],
  });

export const memberPathInput = z.object({ id: uuid, userId: uuid });
export const updateMemberInput = memberPathInput.extend({ permission: memberPermissionList });

export type Member = z.infer<typeof memberSchema>;
export type AddMemberInput = z.infer<typeof addMemberInput>;
export type UpdateMemberInput = z.infer<typeof updateMemberInput>;
