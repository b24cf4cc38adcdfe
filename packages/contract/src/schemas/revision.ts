import { z } from "zod";
import { exampleId, exampleTime, timestamp, uuid } from "./common.js";
import { cursorParam, limitParam, paged, pageParam } from "./pagination.js";
import { workshopIdSchema } from "./workshop.js";

/** Why a revision was recorded. */
export const revisionReasons = [
  "initial",
  "mods-added",
  "mods-removed",
  "configuration",
  "import",
  "restore",
  "duplicate",
  "workshop",
] as const;

/** The largest revision number a request may name. */
const MAX_REVISION = 2_147_483_647;

/**
 * A revision number in a query: a number from the typed client, decimal digits from REST; 1 or
 * more (0, the empty pack before its first change, where said).
 */
export const revisionNumber = (min: 0 | 1, description: string, example = 3) =>
  z
    .preprocess(
      (value) => (typeof value === "string" && /^(?:0|[1-9][0-9]{0,9})$/.test(value) ? Number(value) : value),
      z
        .number({ message: "Must be a whole number" })
        .int({ message: "Must be a whole number" })
        .min(min, { message: `Must be ${min} or more` })
        .max(MAX_REVISION, { message: `Must be ${MAX_REVISION} or less` }),
    )
    .meta({ description, example });

/** Bounds of what a revision holds: a pack's mods, a mod's ids and map folders, as the catalogue bounds them. */
const MAX_MODS = 20_000;
const modName = z.string().max(255);
const ids = z.array(z.string().max(200)).max(200);

const author = z
  .object({ id: uuid, name: z.string().max(100) })
  .nullable()
  .meta({ description: "Who made the change; null for the workshop (a catalogue change) and the first revision" });

const counts = z.object({
  added: z.number().int().min(0),
  removed: z.number().int().min(0),
  moved: z.number().int().min(0).meta({ description: "Mods that changed their place relative to the others" }),
  selectionChanged: z.number().int().min(0).meta({ description: "Mods whose written in-game ids changed" }),
});

export const revisionSummarySchema = z
  .object({
    number: z.number().int().min(1),
    createdAt: timestamp,
    author,
    reason: z.enum(revisionReasons),
    counts,
  })
  .meta({
    id: "RevisionSummary",
    example: {
      number: 3,
      createdAt: exampleTime,
      author: { id: exampleId, name: "Brita" },
      reason: "mods-added",
      counts: { added: 2, removed: 0, moved: 0, selectionChanged: 0 },
    },
  });

const idsPerVersion = z.object({ "41x": ids, "42x": ids });

export const revisionModSchema = z.object({
  id: uuid.meta({ description: "The mod's catalogue id" }),
  workshopId: workshopIdSchema,
  name: modName,
  platformModIds: idsPerVersion.meta({
    description: "The in-game ids the revision's server file writes for the mod, per game version (as selected)",
  }),
  mapFolders: ids,
});

export const revisionSchema = z
  .object({
    number: z.number().int().min(1),
    createdAt: timestamp,
    author,
    reason: z.enum(revisionReasons),
    mods: z.array(revisionModSchema).max(MAX_MODS).meta({ description: "The mods in load order" }),
  })
  .meta({
    id: "Revision",
    example: {
      number: 3,
      createdAt: exampleTime,
      author: { id: exampleId, name: "Brita" },
      reason: "mods-added",
      mods: [
        {
          id: exampleId,
          workshopId: "2200148440",
          name: "Brita's Weapon Pack",
          platformModIds: { "41x": ["Brita"], "42x": ["Brita"] },
          mapFolders: [],
        },
      ],
    },
  });

const modRef = { id: uuid, workshopId: workshopIdSchema, name: modName };

export const revisionComparisonSchema = z
  .object({
    from: z.number().int().min(0),
    to: z.number().int().min(0),
    added: z.array(z.object(modRef)).max(MAX_MODS),
    removed: z.array(z.object(modRef)).max(MAX_MODS),
    moved: z
      .array(
        z.object({
          ...modRef,
          fromPosition: z.number().int().min(1).meta({ description: "The place in `from`'s load order, from 1" }),
          toPosition: z.number().int().min(1).meta({ description: "The place in `to`'s load order, from 1" }),
        }),
      )
      .max(MAX_MODS),
    selectionChanged: z.array(z.object({ ...modRef, before: idsPerVersion, after: idsPerVersion })).max(MAX_MODS),
    workshopUpdates: z
      .array(z.object({ ...modRef, timeUpdated: timestamp }))
      .max(MAX_MODS)
      .meta({
        description:
          "Mods in both whose workshop item is newer at `to` than at `from` (with `to` left out, the catalogue's current date), newest first",
      }),
  })
  .meta({
    id: "RevisionComparison",
    example: {
      from: 2,
      to: 3,
      added: [{ id: exampleId, workshopId: "2200148440", name: "Brita's Weapon Pack" }],
      removed: [],
      moved: [],
      selectionChanged: [],
      workshopUpdates: [],
    },
  });

export const revisionListInput = z.object({
  id: uuid,
  page: pageParam,
  cursor: cursorParam,
  limit: limitParam(20),
});

/**
 * A revision's number in a path or a list's query, as digits: read as a number by the service, so
 * the document states it as the string a URL carries.
 */
const revisionDigits = (zero: boolean, description: string) =>
  z
    .string()
    .max(10)
    .regex(zero ? /^(?:0|[1-9][0-9]{0,9})$/ : /^[1-9][0-9]{0,9}$/, {
      message: zero ? "Must be a revision number (0 or more)" : "Must be a revision number (1 or more)",
    })
    .meta({ description, example: "3" });

export const revisionPathInput = z.object({
  id: uuid,
  number: revisionDigits(false, "The revision's number"),
});

export const revisionCompareInput = z.object({
  id: uuid,
  from: revisionDigits(true, "The revision to compare from (0: the empty pack before its first revision)"),
  to: revisionDigits(true, "The revision to compare to; the current one when left out").optional(),
});

export const revisionPageSchema = paged(revisionSummarySchema).meta({ id: "RevisionPage" });

export type RevisionSummary = z.infer<typeof revisionSummarySchema>;
export type Revision = z.infer<typeof revisionSchema>;
export type RevisionComparison = z.infer<typeof revisionComparisonSchema>;
export type RevisionReason = (typeof revisionReasons)[number];
