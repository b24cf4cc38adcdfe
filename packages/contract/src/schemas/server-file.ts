import { z } from "zod";
import { checkFindingSchema } from "./check.js";
import { gameVersions } from "./common.js";
import { revisionNumber } from "./revision.js";
import { workshopIdSchema } from "./workshop.js";

/** The forms the current server file is served in. */
export const serverFileFormats = ["ini", "json", "env"] as const;
export type ServerFileFormat = (typeof serverFileFormats)[number];

const versionParameter = z
  .enum(gameVersions)
  .meta({ description: "The game version of the file: `41x` or `42x`", example: "42x" });

/**
 * The Project Zomboid server images whose start step the `env` form is encoded for, each named for
 * its public repository.
 */
export const serverImages = ["danixu", "pepecitron", "renegade-master", "indifferentbroccoli"] as const;
export type ServerImage = (typeof serverImages)[number];

/**
 * How a file names a mod on `Mods=`: `plain` (the bare `ModID`, the only form of a 41x file),
 * `backslash` (`\ModID`, the 42x default) or `workshop` (`WorkshopID\ModID`).
 */
export const idForms = ["plain", "backslash", "workshop"] as const;
export type IdForm = (typeof idForms)[number];

const idFormParameter = z.enum(idForms).optional().meta({
  description:
    "How `Mods=` names each mod. `backslash` (the 42x default): `\\ModID`; `plain`: the bare `ModID` (the only form of a 41x file); `workshop`: `WorkshopID\\ModID`, the form pzmod writes. With `version=41x` only `plain` is accepted (`400` otherwise). Each form has its own `ETag`; the operation's description says which builds read which form.",
});

const revisionParameter = z
  .union([
    z.literal("last-good"),
    revisionNumber(
      1,
      "The revision to render the file from (`GET /modpacks/{id}/revisions`): the same bytes whenever asked, whatever the catalogue has learned since. The current state when left out; 404 for a number the pack has not reached",
    ),
  ])
  .optional()
  .meta({
    description:
      "A revision's number (`GET /modpacks/{id}/revisions`), to render the file from that revision alone: the same bytes whenever asked, whatever the catalogue has learned since; 404 for a number the pack has not reached. `last-good`: the newest revision whose latest start report for this version says `started` (409 while there is none), so a start script can fall back after a failed start. The current state when left out",
  });

/** Build 41 files have bare ids only: a 41x file takes no other `idForm`. */
const idFormNeeds42x = <T extends { version: string; idForm?: IdForm | undefined }>(
  query: T,
  context: z.RefinementCtx,
) => {
  if (query.idForm !== undefined && query.idForm !== "plain" && query.version !== "42x") {
    context.addIssue({
      code: "custom",
      path: ["idForm"],
      message: "A 41x file names mods by bare id: idForm=plain only",
    });
  }
};

export const currentServerFileQuery = z
  .object({
    version: versionParameter,
    format: z.enum(serverFileFormats).default("ini").meta({
      description:
        "`ini` (default): the `servertest.ini` mod lines as `text/plain`; `json`: the lists and the check's findings; `env`: `KEY=value` lines for Docker's `--env-file`",
    }),
    image: z.enum(serverImages).optional().meta({
      description:
        "With `format=env`: the server image whose start step reads the file, so the answer holds only the variables that image reads, each encoded so that its start step writes exactly the `json` form's lists. Without it, the generic `MODS`, `WORKSHOP_ITEMS` and `MAP`, verbatim. Ignored by the other formats.",
      example: "danixu",
    }),
    idForm: idFormParameter,
    revision: revisionParameter,
  })
  .superRefine(idFormNeeds42x);

export const currentServerFileSchema = z
  .object({
    version: z.enum(gameVersions),
    mods: z
      .array(z.string())
      .meta({ description: "The `Mods=` entries in load order, as written (42x ids start with `\\`)" }),
    workshopItems: z.array(workshopIdSchema).meta({ description: "The `WorkshopItems=` entries" }),
    map: z.array(z.string()).meta({ description: "The `Map=` entries: the mods' map folders, then `Muldraugh, KY`" }),
    findings: z.array(checkFindingSchema).meta({
      description: "The modpack check's errors and warnings for this version, as the `ini` form's header lists them",
    }),
  })
  .meta({
    id: "CurrentServerFile",
    example: {
      version: "42x",
      mods: ["\\Brita", "\\Brita_2"],
      workshopItems: ["2200148440"],
      map: ["Muldraugh, KY"],
      findings: [],
    },
  });

export const patchServerFileQuery = z
  .object({
    version: versionParameter,
    format: z.enum(["ini", "json"]).default("ini").meta({
      description: "`ini` (default): the patched file as `text/plain`; `json`: the patched file and what changed",
    }),
    idForm: idFormParameter,
    revision: revisionParameter,
  })
  .superRefine(idFormNeeds42x);

export const serverFilePatchSchema = z
  .object({
    content: z.string().meta({ description: "The whole patched file" }),
    changes: z.object({
      modsAdded: z.number().int().min(0),
      modsRemoved: z.number().int().min(0),
      workshopItemsAdded: z.number().int().min(0),
      workshopItemsRemoved: z.number().int().min(0),
      mapChanged: z.boolean(),
    }),
  })
  .meta({
    id: "ServerFilePatch",
    example: {
      content: "PVP=true\nMods=Brita;Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\nPublic=false\n",
      changes: { modsAdded: 2, modsRemoved: 0, workshopItemsAdded: 1, workshopItemsRemoved: 0, mapChanged: false },
    },
  });

export type CurrentServerFile = z.infer<typeof currentServerFileSchema>;
export type ServerFilePatch = z.infer<typeof serverFilePatchSchema>;
export type ServerFileChanges = ServerFilePatch["changes"];
