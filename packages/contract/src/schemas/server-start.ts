import { z } from "zod";
import { exampleId, exampleTime, gameVersions, timestamp, uuid } from "./common.js";
import { cursorParam, limitParam, paged, pageParam } from "./pagination.js";
import { revisionNumber } from "./revision.js";
import { workshopIdSchema } from "./workshop.js";

export const serverStartFindingCodes = [
  "mod-not-found",
  "workshop-download-failed",
  "not-started",
  "lua-error",
] as const;
export const serverStartOutcomes = ["started", "failed", "incomplete"] as const;

/** The largest start log a report may send: 16 MiB. */
export const MAX_START_LOG_BYTES = 16 * 1024 * 1024;

export const serverStartFindingSchema = z.object({
  code: z.enum(serverStartFindingCodes).meta({
    description:
      "`mod-not-found` (error): the server could not find an in-game id (`required mod \"…\" not found`). `workshop-download-failed` (error): a workshop item it could not download. `not-started` (error): an exception, or the process's end, before the server was up. `lua-error` (warning): an error raised from a mod's Lua file.",
  }),
  severity: z.enum(["error", "warning"]),
  modId: uuid.nullable().meta({ description: "The pack's mod it concerns (its catalogue id), when the log names one" }),
  workshopId: workshopIdSchema.nullable(),
  platformModId: z.string().max(200).nullable().meta({ description: "The in-game id the log names" }),
  line: z.number().int().min(1).meta({ description: "The line of the log it was found on, from 1" }),
  text: z.string().max(500).meta({ description: "That line, without the log's prefixes" }),
});

export const serverStartSchema = z
  .object({
    id: uuid,
    revision: z.number().int().min(0).meta({ description: "The revision whose file the server started with" }),
    version: z.enum(gameVersions),
    outcome: z.enum(serverStartOutcomes).meta({
      description:
        "`started`: the log reached the line that says the server is up, with no error finding; `failed`: an error finding; `incomplete`: the log stops with neither",
    }),
    modsLoaded: z
      .array(z.string().max(200))
      .max(5_000)
      .meta({ description: "The in-game ids the server loaded, in its order" }),
    findings: z.array(serverStartFindingSchema).max(201),
    createdAt: timestamp,
  })
  .meta({
    id: "ServerStart",
    example: {
      id: exampleId,
      revision: 3,
      version: "42x",
      outcome: "failed",
      modsLoaded: ["Brita"],
      findings: [
        {
          code: "mod-not-found",
          severity: "error",
          modId: exampleId,
          workshopId: "2200148440",
          platformModId: "Brita_2",
          line: 212,
          text: 'ZomboidFileSystem.loadModAndRequired> required mod "Brita_2" not found',
        },
      ],
      createdAt: exampleTime,
    },
  });

export const serverStartQuery = z.object({
  version: z
    .enum(gameVersions)
    .meta({ description: "The game version the server runs: `41x` or `42x`", example: "42x" }),
  revision: revisionNumber(
    0,
    "The revision whose file the server started with (the `Modpack-Revision` of the file it fetched); the current one when left out",
    1,
  ).optional(),
  exitCode: z
    .preprocess(
      (value) => (typeof value === "string" && /^-?\d{1,5}$/.test(value) ? Number(value) : value),
      z.number().int().min(-32768).max(65535),
    )
    .optional()
    .meta({
      description:
        "The server process's exit code, when it ended before the server was up: the start did not happen (`not-started`)",
    }),
});

export const serverStartListInput = z.object({
  id: uuid,
  page: pageParam,
  cursor: cursorParam,
  limit: limitParam(20),
});

export const serverStartPageSchema = paged(serverStartSchema).meta({ id: "ServerStartPage" });

export type ServerStart = z.infer<typeof serverStartSchema>;
export type ServerStartFinding = z.infer<typeof serverStartFindingSchema>;
