import { z } from "zod";
import { roles } from "../permissions.js";
import { exampleTime, timestamp, uuid } from "./common.js";
import { cursorParam, limitParam, paged, pageParam, SEARCH_TOTAL_RULE, searchParam } from "./pagination.js";
import { userExample, userSchema } from "./session.js";

export const adminUserSchema = userSchema
  .extend({ createdAt: timestamp, updatedAt: timestamp, modpackCount: z.number().int() })
  .meta({
    id: "AdminUser",
    example: { ...userExample, createdAt: exampleTime, updatedAt: exampleTime, modpackCount: 3 },
  });

export const adminUserPageSchema = paged(adminUserSchema).meta({ id: "AdminUserPage" });

export const adminUserListInput = z.object({
  page: pageParam,
  cursor: cursorParam,
  limit: limitParam(20),
  search: searchParam.meta({ description: `Case-insensitive match on name or email. ${SEARCH_TOTAL_RULE}` }),
});

export const updateUserRoleInput = z.object({ id: uuid, role: z.enum(roles).meta({ example: "admin" }) });
export const verifyModpackInput = z.object({ id: uuid, isVerified: z.boolean().meta({ example: true }) });

const statusCounts = z.object({
  pending: z.number().int(),
  running: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
});

export const adminStatsSchema = z
  .object({
    users: z.number().int(),
    modpacks: z.object({ total: z.number().int(), public: z.number().int(), archived: z.number().int() }),
    mods: z.number().int(),
    imports: statusCounts,
    exports: statusCounts,
    queues: z.array(
      z.object({
        name: z.string(),
        queued: z.number().int(),
        active: z.number().int(),
        deferred: z.number().int(),
        total: z.number().int(),
      }),
    ),
  })
  .meta({
    id: "AdminStats",
    example: {
      users: 120,
      modpacks: { total: 340, public: 210, archived: 12 },
      mods: 5400,
      imports: { pending: 0, running: 1, completed: 300, failed: 4 },
      exports: { pending: 1, running: 0, completed: 950, failed: 2 },
      queues: [{ name: "import", queued: 0, active: 1, deferred: 0, total: 1 }],
    },
  });

export type AdminUser = z.infer<typeof adminUserSchema>;
export type AdminStats = z.infer<typeof adminStatsSchema>;
