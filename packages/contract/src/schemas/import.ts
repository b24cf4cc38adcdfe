import { z } from "zod";
import { exampleId, exampleTime, timestamp, uuid } from "./common.js";
import { workshopIdSchema, workshopUrlSchema } from "./workshop.js";

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

/** Why an item of a collection was not imported, or (`ids_rejected`) was imported with values left out. */
export const importFailureReasons = [
  "missing",
  "wrong_game",
  "collection",
  "banned",
  "unavailable",
  "unstorable",
  "ids_rejected",
] as const;
export type ImportFailureReason = (typeof importFailureReasons)[number];

export const importStatusSchema = z
  .object({
    importId: uuid,
    status: z.enum(jobStatuses),
    platformUrl: z.string().max(500),
    modsImported: z.number().int(),
    modsFailed: z.number().int(),
    progress: z
      .object({ done: z.number().int(), total: z.number().int() })
      .nullable()
      .meta({ description: "Items done out of items found, once the collection has been read" }),
    failures: z
      .array(
        z.object({
          workshopId: workshopIdSchema,
          reason: z.enum(importFailureReasons).meta({
            description:
              "`missing`, `wrong_game`, `collection`, `banned`, `unavailable` or `unstorable` (the item could not be imported); `ids_rejected` (the item was imported with its usable in-game ids, `detail` names the values left out)",
          }),
          detail: z.string().optional().meta({ description: "What was wrong, when there is more to say" }),
        }),
      )
      .meta({
        description:
          "The items that could not be imported, and why, and the imported items some of whose in-game ids or map folders were left out. `modsImported + modsFailed` is the number of items the import saw.",
      }),
    error: z.string().nullable().meta({ description: "Why a failed import failed" }),
    startedAt: timestamp.nullable(),
    finishedAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .meta({
    id: "ImportStatus",
    example: {
      importId: exampleId,
      status: "completed",
      platformUrl: "https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298",
      modsImported: 41,
      modsFailed: 1,
      progress: { done: 42, total: 42 },
      failures: [{ workshopId: "2200148441", reason: "missing" }],
      error: null,
      startedAt: exampleTime,
      finishedAt: "2026-11-21T12:00:09.000Z",
      createdAt: exampleTime,
    },
  });

export type JobStatus = (typeof jobStatuses)[number];
export type ImportStarted = z.infer<typeof importStartedSchema>;
export type ImportStatus = z.infer<typeof importStatusSchema>;
