import { z } from "zod";
import { checkFindingSchema } from "./check.js";
import { exampleId, exampleTime, gameVersions, timestamp, uuid } from "./common.js";
import { jobStatuses } from "./import.js";

/** Characters an in-game id given by hand may not hold: list and key separators, controls, line separators. */
const CUSTOM_ID_UNSAFE = /[;=\p{Cc}\u2028\u2029]/u;

const customPlatformModId = z
  .string()
  .trim()
  .min(1, { message: "Must not be empty" })
  .max(200)
  .refine((id) => !CUSTOM_ID_UNSAFE.test(id), {
    message: "Must not contain `;`, `=`, control characters or line separators",
  });

const modConfigSchema = z
  .record(
    uuid,
    z.object({
      selectedPlatformModIds: z
        .array(z.string().min(1).max(200))
        .max(500)
        .meta({ description: "The mod's in-game ids to enable; empty leaves the mod out of the file" }),
      customPlatformModIds: z
        .array(customPlatformModId)
        .max(50)
        .refine((ids) => new Set(ids).size === ids.length, { message: "In-game ids must not repeat" })
        .optional()
        .meta({
          description:
            "In-game ids given by hand, for a mod whose workshop description names none (or not all): always written for the mod, after its selected ids. Up to 50, each 1-200 characters without `;`, `=`, control characters or line separators. Shown only when set; an empty list removes them.",
        }),
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
    .refine((ids) => new Set(ids).size === ids.length, { message: "Mod ids must not repeat" })
    .meta({ description: "Ids of mods in the modpack, in load order", example: [] }),
  modConfig: modConfigSchema.default({}),
});

export const requestServerFileInput = z.object({
  id: uuid,
  version: z.enum(gameVersions).meta({ description: "The game version of the file: `41x` or `42x`", example: "41x" }),
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
    // `<the name as a slug>-<version>.ini`, the name at most 50 characters.
    fileName: z.string().max(100).nullable(),
    downloadUrl: z.string().nullable().meta({ description: "Where to download the file, once completed" }),
    error: z.string().max(200).nullable(),
    findings: z.array(checkFindingSchema).meta({
      description:
        "The modpack check's errors and warnings for this version when the file was generated (as listed in the file's header); empty until then",
    }),
    createdAt: timestamp,
    finishedAt: timestamp.nullable(),
  })
  .meta({
    id: "ExportStatus",
    example: {
      exportId: exampleId,
      modpackId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8e",
      version: "41x",
      status: "completed",
      fileName: "brita-s-apocalypse-41x.ini",
      downloadUrl: `/modpacks/export/${exampleId}/download`,
      error: null,
      findings: [],
      createdAt: exampleTime,
      finishedAt: "2026-11-21T12:00:02.000Z",
    },
  });

export const exportIdInput = z.object({ exportId: uuid });

export type ExportConfiguration = z.infer<typeof exportConfigurationSchema>;
export type ExportRequested = z.infer<typeof exportRequestedSchema>;
export type ExportStatus = z.infer<typeof exportStatusSchema>;
