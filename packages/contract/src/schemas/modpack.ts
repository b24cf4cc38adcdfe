import { z } from "zod";
import { exampleId, exampleTime, timestamp, uuid } from "./common.js";
import { memberSchema } from "./member.js";
import {
  cursorParam,
  limitParam,
  paged,
  pageParam,
  queryBoolean,
  searchParam,
  sortByParam,
  sortOrderParam,
} from "./pagination.js";
import { workshopUrlSchema } from "./workshop.js";

const name = z
  .string()
  .trim()
  .min(3, { message: "Must be 3-50 characters" })
  .max(50, { message: "Must be 3-50 characters" })
  .meta({
    description: "3-50 characters once leading and trailing spaces are trimmed (stored trimmed)",
    example: "Brita's Apocalypse",
  });
const description = z
  .string()
  .max(1024, { message: "Must be at most 1024 characters" })
  .meta({ example: "Guns, vehicles and a bigger map." });
const httpUrl = z
  .url({ protocol: /^https?$/, message: "Must be an http(s) URL" })
  .max(2048, { message: "Must be at most 2048 characters" });
const avatarUrl = httpUrl.meta({
  description: "An image shown with the modpack (http or https)",
  example: "https://images.example.com/modpacks/apocalypse.png",
});

const summaryExample = {
  id: exampleId,
  name: "Brita's Apocalypse",
  description: "Guns, vehicles and a bigger map.",
  avatarUrl: null,
  platformUrl: "https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298",
  owner: "0193b1c4-5f7e-7a1b-9c2d-000000000001",
  isPublic: true,
  isVerified: false,
  isActive: true,
  createdAt: exampleTime,
  updatedAt: exampleTime,
};

export const modpackSummarySchema = z
  .object({
    id: uuid,
    // What input allows: every modpack is written through the create, update and duplicate inputs.
    name: z.string().max(50),
    description: z.string().max(1024).nullable(),
    avatarUrl: z.string().max(2048).nullable(),
    platformUrl: z
      .string()
      .max(500)
      .nullable()
      .meta({ description: "The Steam Workshop collection the modpack follows" }),
    owner: uuid.meta({ description: "User id of the owner" }),
    isPublic: z.boolean(),
    isVerified: z.boolean(),
    isActive: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "ModpackSummary", example: summaryExample });

export const modpackSchema = modpackSummarySchema
  .extend({
    members: z.array(memberSchema),
    metadata: z.record(z.string().max(100), z.unknown()),
    revision: z.number().int().min(0).meta({
      description:
        "The number of the pack's newest revision (`GET /modpacks/{id}/revisions`): 0 until its mods first change",
    }),
    lastGoodRevision: z
      .object({ "41x": z.number().int().min(0).nullable(), "42x": z.number().int().min(0).nullable() })
      .meta({
        description:
          "Per game version, the newest revision whose latest start report (`POST /modpacks/{id}/server-starts`) says `started`; null until one does. `revision=last-good` on the server file serves it",
      }),
  })
  .meta({
    id: "Modpack",
    example: {
      ...summaryExample,
      members: [],
      metadata: { discord: "https://discord.gg/example" },
      revision: 3,
      lastGoodRevision: { "41x": null, "42x": 2 },
    },
  });

export const modpackPageSchema = paged(modpackSummarySchema).meta({ id: "ModpackPage" });

const listQuery = {
  page: pageParam,
  cursor: cursorParam,
  limit: limitParam(10),
  search: searchParam,
  sortBy: sortByParam("createdAt"),
  sortOrder: sortOrderParam("desc"),
};

export const publicModpackListInput = z.object(listQuery);
export const modpacksWithModInput = z.object({ id: uuid.meta({ description: "The mod's id" }), ...listQuery });
export const myModpackListInput = z.object({
  ...listQuery,
  includeArchived: queryBoolean.meta({ description: "Include your archived modpacks (default false)" }),
});

export const createModpackInput = z
  .object({
    name,
    description: description.optional(),
    avatarUrl: avatarUrl.optional(),
    isPublic: z.boolean().default(false),
    platformWorkshopUrl: workshopUrlSchema.optional().meta({
      description: "A Steam Workshop collection URL; stored and returned as `platformUrl`",
    }),
  })
  .meta({ id: "CreateModpackInput" });

const metadata = z
  .record(z.string().max(100), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 16_384, { message: "Must be at most 16 KiB of JSON" })
  .meta({
    description: "Free-form JSON object (at most 16 KiB); replaces the stored one",
    example: { discord: "https://discord.gg/example" },
  });

export const updateModpackInput = z.object({
  id: uuid,
  name: name.optional(),
  description: description.nullable().optional(),
  avatarUrl: avatarUrl.nullable().optional(),
  isPublic: z.boolean().optional(),
  platformWorkshopUrl: workshopUrlSchema.nullable().optional(),
  metadata: metadata.optional(),
});

export const duplicateModpackInput = z
  .object({
    id: uuid,
    name: name.optional().meta({
      description: "The copy's name (3-50 characters); default: the original's name followed by ` (copy)`",
    }),
  })
  .meta({ id: "DuplicateModpackInput" });

export type ModpackSummary = z.infer<typeof modpackSummarySchema>;
export type Modpack = z.infer<typeof modpackSchema>;
export type MyModpackListInput = z.infer<typeof myModpackListInput>;
