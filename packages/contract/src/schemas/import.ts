import { z } from "zod";
import { timestamp, uuid } from "./common.js";
import { workshopUrlSchema } from "./workshop.js";

export const jobStatuses = ["pending", "running", "completed", "failed"] as const;

export const startImportInput = z.object({
  id: uuid,
  platformUrl: workshopUrlSchema.meta({
    description: "The Steam Workshop collection to import",
    example: "https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298",
  }),
});

export const importStartedSchema = z
  .object({
    message: z.string(),
    status: z.literal("pending"),
    importId: uuid,
  })
  .meta({
    id: "ImportStarted",
    example: { message: "Import started", status: "pending", importId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d" },
  });

export const importStatusSchema = z
  .object({
    importId: uuid,
    status: z.enum(jobStatuses),
    platformUrl: z.string(),
    modsImported: z.number().int(),
    modsFailed: z.number().int(),
    progress: z
      .object({ done: z.number().int(), total: z.number().int() })
      .nullable()
      .meta({ description: "Items done out of items found, once the collection has been read" }),
    failures: z
      .array(
        z.object({
          workshopId: z.string(),
          reason: z.string().meta({ description: "`missing`, `wrong_game`, `collection`, `banned` or `unavailable`" }),
        }),
      )
      .meta({ description: "The items that could not be imported, and why" }),
    error: z.string().nullable().meta({ description: "Why a failed import failed" }),
    startedAt: timestamp.nullable(),
    finishedAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .meta({ id: "ImportStatus" });

export type ImportStarted = z.infer<typeof importStartedSchema>;
export type ImportStatus = z.infer<typeof importStatusSchema>;
export type StartImportInput = z.infer<typeof startImportInput>;
