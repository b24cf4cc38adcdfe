import { z } from "zod";
import { timestamp, uuid } from "./common.js";
import { limitParam, paged, pageParam, searchParam, sortByParam, sortOrderParam, tagsParam } from "./pagination.js";

export const modSchema = z
  .object({
    id: uuid,
    name: z.string(),
    workshopId: z.string(),
    platformModId: z.array(z.string()).meta({ description: "In-game mod ids (the `Mods=` values)" }),
    mapFolders: z.array(z.string()),
    requiredWorkshopIds: z.array(z.string()),
    description: z.string(),
    avatarUrl: z.string(),
    tags: z.array(z.string()),
    isActive: z.boolean().meta({ description: "False when the item was removed from the workshop or banned" }),
    timeUpdated: timestamp.nullable().meta({ description: "When the workshop item was last updated" }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: "Mod",
    example: {
      id: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d",
      name: "Brita's Weapon Pack",
      workshopId: "2200148440",
      platformModId: ["Brita"],
      mapFolders: [],
      requiredWorkshopIds: ["2392709985"],
      description: "Adds 200+ weapons.",
      avatarUrl: "https://steamuserimages-a.akamaihd.net/ugc/preview.jpg",
      tags: ["Build 41", "Weapons"],
      isActive: true,
      timeUpdated: "2026-10-01T08:00:00.000Z",
      createdAt: "2026-11-21T12:00:00.000Z",
      updatedAt: "2026-11-21T12:00:00.000Z",
    },
  });

export const modpackModSchema = modSchema
  .extend({ addedAt: timestamp.meta({ description: "When the mod was (last) added to the modpack" }) })
  .meta({ id: "ModpackMod" });

export const modpackModLinkSchema = z
  .object({
    id: uuid,
    modpackId: uuid,
    modId: uuid,
    isActive: z.boolean(),
    createdAt: timestamp,
    created: z
      .boolean()
      .meta({ description: "True when this call added the mod (201); false when it was already there (200)" }),
  })
  .meta({ id: "ModpackModLink" });

export const createdModSchema = modSchema
  .extend({
    created: z.boolean().meta({ description: "True when this call added the mod to the catalogue (201)" }),
  })
  .meta({ id: "CreatedMod" });

export const modPageSchema = paged(modSchema).meta({ id: "ModPage" });
export const modpackModPageSchema = paged(modpackModSchema).meta({ id: "ModpackModPage" });

export const tagListSchema = z
  .object({ tags: z.array(z.object({ name: z.string(), count: z.number().int() })) })
  .meta({ id: "TagList", example: { tags: [{ name: "Build 41", count: 120 }] } });

const modAttribute = z
  .string()
  .trim()
  .min(1, { message: "Must not be empty" })
  .max(500)
  .meta({ description: "A workshop URL, a workshop id (digits), or an in-game mod id already in the catalogue" });

/** `modAtribute` is the interface's spelling; `modAttribute` is accepted too. One of them is required. */
const modReferenceShape = { modAtribute: modAttribute.optional(), modAttribute: modAttribute.optional() };
const withModReference = <T extends z.ZodType<{ modAtribute?: string | undefined; modAttribute?: string | undefined }>>(
  schema: T,
) =>
  schema.refine((input) => input.modAtribute !== undefined || input.modAttribute !== undefined, {
    message: "Required: a workshop URL, workshop id, or in-game mod id",
    path: ["modAtribute"],
  });

export const modReferenceInput = withModReference(z.object(modReferenceShape));
export const addModpackModInput = withModReference(z.object({ id: uuid, ...modReferenceShape }));

export const modListInput = z.object({
  page: pageParam,
  limit: limitParam(20),
  search: searchParam.meta({
    description: "Case-insensitive match on name, description or workshop id, or an exact in-game id",
  }),
  tags: tagsParam,
  modpackId: uuid
    .optional()
    .meta({ description: "Only mods active in this modpack: a public one, or one you own or are a member of" }),
  sortBy: sortByParam("name"),
  sortOrder: sortOrderParam("asc"),
});

export const modpackModListInput = z.object({
  id: uuid,
  page: pageParam,
  limit: limitParam(10),
  search: searchParam.meta({
    description: "Case-insensitive match on name, description or workshop id, or an exact in-game id",
  }),
  tags: tagsParam,
  sortBy: sortByParam("createdAt", "the order mods were added"),
  sortOrder: sortOrderParam("asc"),
});

export const modpackModPathInput = z.object({ id: uuid, modId: uuid });

export type Mod = z.infer<typeof modSchema>;
export type ModpackMod = z.infer<typeof modpackModSchema>;
export type ModpackModLink = z.infer<typeof modpackModLinkSchema>;
export type ModListInput = z.infer<typeof modListInput>;
export type ModpackModListInput = z.infer<typeof modpackModListInput>;
export type TagList = z.infer<typeof tagListSchema>;
