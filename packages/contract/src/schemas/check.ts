import { z } from "zod";
import { gameVersions, uuid } from "./common.js";
import { workshopIdSchema } from "./workshop.js";

export const checkFindingCodes = [
  "missing-requirement",
  "requirement-order",
  "requirement-cycle",
  "id-clash",
  "no-ids",
  "unavailable",
  "wrong-build",
  "nothing-selected",
  "seen-at-start",
] as const;

export const checkSeverities = ["error", "warning", "info"] as const;

export const checkFindingSchema = z
  .object({
    code: z.enum(checkFindingCodes).meta({
      description:
        "`missing-requirement` (error): a mod needs a workshop item that is not active in the modpack. `requirement-order` (warning): the load order puts a mod before something it requires. `requirement-cycle` (warning): mods require each other. `id-clash` (error): the same in-game id is selected in two mods. `no-ids` (error): a mod has no usable in-game id for this version. `unavailable` (error): removed, private or delisted on the workshop, as the last refresh saw it. `wrong-build` (warning): the mod's workshop tags name game builds, not this one. `nothing-selected` (info): every in-game id deselected, so the mod is left out. `seen-at-start` (warning): an error the latest start report of this version found, when it started with the current revision (`POST /modpacks/{id}/server-starts`).",
    }),
    severity: z.enum(checkSeverities),
    // Words around at most two mod names (255 characters each) and their ids.
    message: z.string().max(2000).meta({ description: "What is wrong and what to do, in words" }),
    modId: uuid.optional().meta({ description: "The mod the finding is about" }),
    workshopId: workshopIdSchema.optional().meta({ description: "That mod's workshop id" }),
    platformModId: z.string().max(1000).optional().meta({ description: "The in-game id concerned (`id-clash`)" }),
    requiredWorkshopId: workshopIdSchema
      .optional()
      .meta({ description: "The required workshop item (`missing-requirement`, `requirement-order`)" }),
    relatedModIds: z
      .array(uuid)
      .optional()
      .meta({ description: "Other mods involved: the one loading too late, sharing the id, or in the cycle" }),
  })
  .meta({ id: "CheckFinding" });

export const modpackCheckSchema = z
  .object({
    version: z.enum(gameVersions),
    ok: z.boolean().meta({ description: "True when no finding is an error" }),
    findings: z.array(checkFindingSchema),
    suggestedOrder: z.array(uuid).meta({
      description:
        "The active mods in a load order where every requirement loads before what needs it, otherwise keeping the saved order (mods in a cycle keep their saved order). Apply it with `PUT /modpacks/{id}/export-configuration` and `modsOrder`.",
    }),
  })
  .meta({
    id: "ModpackCheck",
    example: {
      version: "42x",
      ok: false,
      findings: [
        {
          code: "missing-requirement",
          severity: "error",
          message:
            '"Brita\'s Weapon Pack" (workshop 2200148440) requires workshop item 2392709985 ("Arsenal(26) GunFighter"), which is not in the modpack.',
          modId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d",
          workshopId: "2200148440",
          requiredWorkshopId: "2392709985",
        },
      ],
      suggestedOrder: ["0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d"],
    },
  });

export const modpackCheckInput = z.object({
  id: uuid,
  version: z
    .enum(gameVersions)
    .default("42x")
    .meta({ description: "The game version to check for: `41x` or `42x` (default `42x`)" }),
});

export type CheckSeverity = (typeof checkSeverities)[number];
export type CheckFinding = z.infer<typeof checkFindingSchema>;
export type ModpackCheck = z.infer<typeof modpackCheckSchema>;
