import { z } from "zod";
import { timestamp, uuid } from "./common.js";
import { jobStatuses } from "./import.js";

export const gameVersions = ["41x", "42x"] as const;

const modConfigSchema = z
  .record(
    uuid,
    z.object({
      selectedPlatformModIds: z
        .array(z.string().min(1).max(200))
        .max(500)
        .meta({ description: "The mod's in-game ids to enable; empty leaves the mod out of the file" }),
    }),
  )
  .meta({ description: "Keyed by mod id" });

export const exportConfigurationSchema = z
  .object({
    modsOrder: z.array(uuid).meta({ description: "Mod ids in load order" }),
    modConfig: modConfigSchema,
  })
  .meta({
    id: "ExportConfiguration",
    example: {
      modsOrder: ["0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d"],
      modConfig: { "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d": { selectedPlatformModIds: ["Brita", "Brita_2"] } },
    },
  });

export const saveExportConfigurationInput = z.object({
  id: uuid,
  modsOrder: z
    .array(uuid)
    .max(5000)
    .refine((ids) => new Set(ids).size === ids.length, { message: "Mod ids must not repeat" }),
  modConfig: modConfigSchema.default({}),
});

export const requestServerFileInput = z.object({
  id: uuid,
  version: z.enum(gameVersions).meta({ description: "The game version of the file: `41x` or `42x`" }),
});

export const exportRequestedSchema = z
  .object({ exportId: uuid, status: z.literal("pending") })
  .meta({ id: "ExportRequested", example: { exportId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d", status: "pending" } });

export const exportStatusSchema = z
  .object({
    exportId: uuid,
    modpackId: uuid,
    version: z.enum(gameVersions),
    status: z.enum(jobStatuses),
    fileName: z.string().nullable(),
    downloadUrl: z.string().nullable().meta({ description: "Where to download the file, once completed" }),
    error: z.string().nullable(),
    createdAt: timestamp,
    finishedAt: timestamp.nullable(),
  })
  .meta({ id: "ExportStatus" });

export const exportIdInput = z.object({ exportId: uuid });

export type GameVersion = (typeof gameVersions)[number];
export type ExportConfiguration = z.infer<typeof exportConfigurationSchema>;
export type SaveExportConfigurationInput = z.infer<typeof saveExportConfigurationInput>;
export type ExportRequested = z.infer<typeof exportRequestedSchema>;
export type ExportStatus = z.infer<typeof exportStatusSchema>;
