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

/** A revision number in a path or query: 1 or more (0, the empty pack before its first change, where said). */
export const revisionNumber = (min: 0 | 1, description: string) =>
  z.preprocess(
    (value) => (typeof value === "string" && /^(?:0|[1-9][0-9]{0,9})$/.test(value) ? Number(value) : value),
    z
      .number({ message: "Must be a whole number" })
      .int({ message: "Must be a whole number" })
      .min(min, { message: `Must be ${min} or more` })
      .max(MAX_REVISION, { message: `Must be ${MAX_REVISION} or less` })
      .meta({ description, example: 3 }),
  );

const author = z
  .object({ id: uuid, name: z.string() })
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

const idsPerVersion = z.object({ "41x": z.array(z.string()), "42x": z.array(z.string()) });

export const revisionModSchema = z.object({
  id: uuid.meta({ description: "The mod's catalogue id" }),
  workshopId: workshopIdSchema,
  name: z.string(),
  platformModIds: idsPerVersion.meta({
    description: "The in-game ids the revision's server file writes for the mod, per game version (as selected)",
  }),
  mapFolders: z.array(z.string()),
});

export const revisionSchema = z
  .object({
    number: z.number().int().min(1),
    createdAt: timestamp,
    author,
    reason: z.enum(revisionReasons),
    mods: z.array(revisionModSchema).meta({ description: "The mods in load order" }),
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

const modRef = { id: uuid, workshopId: workshopIdSchema, name: z.string() };

export const revisionComparisonSchema = z
  .object({
    from: z.number().int().min(0),
    to: z.number().int().min(0),
    added: z.array(z.object(modRef)),
    removed: z.array(z.object(modRef)),
    moved: z.array(
      z.object({
        ...modRef,
        fromPosition: z.number().int().min(1).meta({ description: "The place in `from`'s load order, from 1" }),
        toPosition: z.number().int().min(1).meta({ description: "The place in `to`'s load order, from 1" }),
      }),
    ),
    selectionChanged: z.array(z.object({ ...modRef, before: idsPerVersion, after: idsPerVersion })),
    workshopUpdates: z.array(z.object({ ...modRef, timeUpdated: timestamp })).meta({
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

export const revisionPathInput = z.object({
  id: uuid,
  number: revisionNumber(1, "The revision's number"),
});

export const revisionCompareInput = z.object({
  id: uuid,
  from: revisionNumber(0, "The revision to compare from (0: the empty pack before its first revision)"),
  to: revisionNumber(0, "The revision to compare to; the current one when left out").optional(),
});

export const revisionPageSchema = paged(revisionSummarySchema).meta({ id: "RevisionPage" });

export type RevisionSummary = z.infer<typeof revisionSummarySchema>;
export type Revision = z.infer<typeof revisionSchema>;
export type RevisionComparison = z.infer<typeof revisionComparisonSchema>;
export type RevisionReason = (typeof revisionReasons)[number];
