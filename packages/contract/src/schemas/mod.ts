import { z } from "zod";
import { exampleId, exampleTime, timestamp, uuid } from "./common.js";
import {
  cursorParam,
  limitParam,
  paged,
  pageParam,
  queryBoolean,
  SEARCH_TOTAL_RULE,
  searchParam,
  sortByParam,
  sortOrderParam,
  tagsParam,
} from "./pagination.js";
import { workshopIdSchema, workshopTextLimits } from "./workshop.js";

/** The example mod (`buildModIds` is only in the `Mod` schema's own example). */
const modExample = {
  id: exampleId,
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
  createdAt: exampleTime,
  updatedAt: exampleTime,
};

export const modSchema = z
  .object({
    id: uuid,
    name: z.string().max(workshopTextLimits.title),
    workshopId: workshopIdSchema,
    platformModId: z
      .array(z.string())
      .meta({ description: "Every in-game mod id (the `Mods=` values) the workshop page names, for any build" }),
    buildModIds: z.object({ "41x": z.array(z.string()), "42x": z.array(z.string()) }).meta({
      description:
        "The in-game ids for each game build: ids the page names for one build (`Mod ID (b42): X`, `[B42] Mod ID: X`) only there, the others in both. The 41x server file uses the 41x ids, the 42x file the 42x ids.",
    }),
    mapFolders: z.array(z.string()),
    requiredWorkshopIds: z.array(workshopIdSchema).max(workshopTextLimits.requiredItems),
    description: z.string().max(workshopTextLimits.description),
    avatarUrl: z.string().max(workshopTextLimits.previewUrl),
    tags: z.array(z.string().max(workshopTextLimits.tag)).max(workshopTextLimits.tags),
    isActive: z.boolean().meta({ description: "False when the item was removed from the workshop or banned" }),
    timeUpdated: timestamp.nullable().meta({ description: "When the workshop item was last updated" }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Mod", example: { ...modExample, buildModIds: { "41x": ["Brita"], "42x": ["Brita"] } } });

export const modpackModSchema = modSchema
  .extend({ addedAt: timestamp.meta({ description: "When the mod was (last) added to the modpack" }) })
  .meta({ id: "ModpackMod", example: { ...modExample, addedAt: exampleTime } });

const linkShape = {
  id: uuid,
  modpackId: uuid,
  modId: uuid,
  isActive: z.boolean(),
  createdAt: timestamp,
};

export const dependencyLinkSchema = z
  .object({ ...linkShape, workshopId: workshopIdSchema.meta({ description: "The required mod's workshop id" }) })
  .meta({ id: "DependencyLink" });

export const modpackModLinkSchema = z
  .object({
    ...linkShape,
    created: z
      .boolean()
      .meta({ description: "True when this call added the mod (201); false when it was already there (200)" }),
    dependenciesAdded: z.array(dependencyLinkSchema).meta({
      description:
        "The mods this call added (or re-added) because the mod requires them, directly or through another requirement; empty when none",
    }),
  })
  .meta({
    id: "ModpackModLink",
    example: {
      id: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c90",
      modpackId: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8e",
      modId: exampleId,
      isActive: true,
      createdAt: exampleTime,
      created: true,
    },
  });

export const createdModSchema = modSchema
  .extend({
    created: z.boolean().meta({ description: "True when this call added the mod to the catalogue (201)" }),
  })
  .meta({ id: "CreatedMod", example: { ...modExample, created: true } });

export const modPageSchema = paged(modSchema).meta({ id: "ModPage" });
export const modpackModPageSchema = paged(modpackModSchema).meta({ id: "ModpackModPage" });

export const tagListSchema = z
  .object({ tags: z.array(z.object({ name: z.string().max(workshopTextLimits.tag), count: z.number().int() })) })
  .meta({ id: "TagList", example: { tags: [{ name: "Build 41", count: 120 }] } });

const modAttribute = z
  .string({
    error: (issue) =>
      issue.input === undefined ? "Required: a workshop URL, workshop id, or in-game mod id" : "Must be text",
  })
  .trim()
  .min(1, { message: "Must not be empty: give a workshop URL, workshop id, or in-game mod id" })
  .max(500, { message: "Must be at most 500 characters" })
  .meta({
    description:
      "A workshop URL, a workshop id (digits), or an in-game mod id already in the catalogue. `modAttribute` is accepted as another spelling of this field.",
    example: "https://steamcommunity.com/sharedfiles/filedetails/?id=3100000001",
  });

/**
 * `modAtribute` is the interface's spelling; a body naming the field `modAttribute` is read as if it
 * had used `modAtribute` (which wins when both are given), so the schema has one required field.
 */
export function acceptModAttributeSpelling(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || !("modAttribute" in raw)) return raw;
  const { modAttribute, ...rest } = raw as Record<string, unknown>;
  return "modAtribute" in rest ? rest : { ...rest, modAtribute: modAttribute };
}

const modSearchParam = searchParam.meta({
  description: `Words, each found in the name, description or workshop id, in any order, ignoring case and accents (\`pokemon\` finds \`Pokémon\`); a word shorter than three characters is matched with the word before it (\`mod 1\`). Or exactly an in-game mod id, a workshop id or a workshop URL. ${SEARCH_TOTAL_RULE}`,
});

export const modReferenceInput = z.object({ modAtribute: modAttribute });
export const addModpackModInput = z.object({ id: uuid, modAtribute: modAttribute });

export const modListInput = z.object({
  page: pageParam,
  cursor: cursorParam,
  limit: limitParam(20),
  search: modSearchParam,
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
  cursor: cursorParam,
  limit: limitParam(10),
  search: modSearchParam,
  tags: tagsParam,
  sortBy: sortByParam("createdAt", "the order mods were added"),
  sortOrder: sortOrderParam("asc"),
});

export const modpackModPathInput = z.object({ id: uuid, modId: uuid });

export const removeModpackModInput = modpackModPathInput.extend({
  force: queryBoolean.meta({ description: "Remove the mod even when other mods of the modpack require it" }),
});

export type Mod = z.infer<typeof modSchema>;
export type CreatedMod = z.infer<typeof createdModSchema>;
export type ModpackMod = z.infer<typeof modpackModSchema>;
export type ModpackModLink = z.infer<typeof modpackModLinkSchema>;
export type TagList = z.infer<typeof tagListSchema>;
