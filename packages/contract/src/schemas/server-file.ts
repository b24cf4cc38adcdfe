import { z } from "zod";
import { checkFindingSchema } from "./check.js";
import { gameVersions } from "./common.js";

/** The forms the current server file is served in. */
export const serverFileFormats = ["ini", "json", "env"] as const;
export type ServerFileFormat = (typeof serverFileFormats)[number];

const versionParameter = z
  .enum(gameVersions)
  .meta({ description: "The game version of the file: `41x` or `42x`", example: "42x" });

export const currentServerFileQuery = z.object({
  version: versionParameter,
  format: z.enum(serverFileFormats).default("ini").meta({
    description:
      "`ini` (default): the `servertest.ini` mod lines as `text/plain`; `json`: the lists and the check's findings; `env`: `KEY=value` lines for Docker's `--env-file`",
  }),
});

export const currentServerFileSchema = z
  .object({
    version: z.enum(gameVersions),
    mods: z
      .array(z.string())
      .meta({ description: "The `Mods=` entries in load order, as written (42x ids start with `\\`)" }),
    workshopItems: z.array(z.string()).meta({ description: "The `WorkshopItems=` entries" }),
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

export const patchServerFileQuery = z.object({
  version: versionParameter,
  format: z.enum(["ini", "json"]).default("ini").meta({
    description: "`ini` (default): the patched file as `text/plain`; `json`: the patched file and what changed",
  }),
});

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
