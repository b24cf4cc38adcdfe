import { hash } from "node:crypto";
import {
  type Caller,
  type CurrentServerFile,
  currentServerFileQuery,
  currentServerFileSchema,
  type GameVersion,
  type ServerFileFormat,
  uuid,
} from "@modpack/contract";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";
import { ENV_VARIABLES, renderEnvFile } from "../server-file/formats.js";
import type { CurrentServerFile as RenderedFile } from "../services/server-files.js";
import { setCacheHeaders } from "./caching.js";

export interface ServerFileRouteDependencies {
  /** The modpack's current server file, for a caller who may read it; throws the contract's typed errors. */
  current(caller: Caller | null, modpackId: string, version: GameVersion): Promise<RenderedFile>;
}

const CHECK_ERRORS_HEADER = "modpack-check-errors";

const MEDIA_TYPES: Record<ServerFileFormat, string> = {
  ini: "text/plain; charset=utf-8",
  json: "application/json; charset=utf-8",
  env: "text/plain; charset=utf-8",
};

/** The bytes of one form of the current file. */
function bodyOf(file: RenderedFile, format: ServerFileFormat): string {
  if (format === "ini") return file.ini;
  if (format === "env") return renderEnvFile(file.header, file.lines);
  const json: CurrentServerFile = { version: file.version, ...file.lines, findings: file.findings };
  return JSON.stringify(json);
}

/** A strong validator of exactly these bytes. */
function strongTag(body: string): string {
  return `"${hash("sha256", body, "base64url")}"`;
}

/** `If-None-Match` compares weakly (RFC 9110, 13.1.2): `W/"x"` names the same bytes as `"x"`. */
function namesTag(ifNoneMatch: string | undefined, etag: string): boolean {
  return ifNoneMatch?.split(",").some((tag) => tag.trim() === "*" || tag.trim().replace(/^W\//, "") === etag) ?? false;
}

const modpackParams = z.object({ id: uuid.meta({ description: "The modpack's id" }) });

const checkErrorsHeader = z.object({
  "Modpack-Check-Errors": z.string().meta({
    description:
      "How many errors the modpack check finds for this version (`0` when none): a script may refuse to start on more",
    example: "0",
  }),
});

const INI_EXAMPLE =
  "# Modpack Collection Service\n# Modpack: My pack (0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d)\n# Game version: 42x\nMods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n";

const ENV_NAMES = ENV_VARIABLES.map(([name]) => `\`${name}\``).join(", ");

/** `GET /modpacks/{id}/server-file`: the modpack's current server file, in one request. */
export function serverFileRoutes(deps: ServerFileRouteDependencies): RouteModule {
  const current = defineRoute({
    method: "GET",
    path: "/modpacks/{id}/server-file",
    tags: ["Server files"],
    operationId: "getCurrentServerFile",
    summary: "Get the current server file",
    description: [
      "The modpack's server file as its mods, load order and selection are now, rendered at once with the asynchronous export's rule and header but without a generation time: the same modpack gives the same bytes, so a start script may fetch it on every start. (`POST` on this path is the asynchronous export.)",
      "",
      "- `format=ini` (default): `text/plain`, the header and the `Mods=`, `WorkshopItems=` and `Map=` lines.",
      "- `format=json`: `{ version, mods, workshopItems, map, findings }`.",
      `- \`format=env\`: \`KEY=value\` lines as Docker's \`--env-file\` reads them (the header as \`#\` comments, values verbatim and \`;\` separated, 42x ids keeping their \`\\\`): ${ENV_NAMES}. \`MODS\`, \`WORKSHOP_ITEMS\` and \`MAP\` are the generic names (indifferentbroccoli/projectzomboid-server-docker reads them), \`MOD_IDS\` and \`WORKSHOP_IDS\` are Danixu/project-zomboid-server-docker's, \`MOD_NAMES\`, \`MOD_WORKSHOP_IDS\` and \`MAP_NAMES\` Renegade-Master/zomboid-dedicated-server's.`,
      "",
      "A modpack whose check finds errors still renders: the findings are in the header and the `json` form, and `Modpack-Check-Errors` counts the errors so a script can refuse to start. The `ETag` is a strong validator of the exact bytes of that version and format; `If-None-Match` answers `304` while they are the same, so a change of the modpack's description or members never looks like a new file.",
      "",
      "Public for a public modpack: anyone may read it without credentials. A private one needs a session cookie or Bearer token of its owner or a member (403 `Access denied` otherwise); an archived one is 404 to everyone but its owner.",
    ].join("\n"),
    permission: "public",
    optionalCaller: true,
    params: modpackParams,
    query: currentServerFileQuery,
    responses: {
      200: {
        description: "The current file in the asked format.",
        headers: checkErrorsHeader.extend({
          ETag: z.string().meta({ description: "A strong validator of the answer's bytes" }),
        }),
        content: {
          "text/plain": { schema: z.string(), example: INI_EXAMPLE },
          "application/json": { schema: currentServerFileSchema },
        },
      },
      304: { description: "`If-None-Match` names the current bytes: nothing changed.", headers: checkErrorsHeader },
    },
    errors: {
      400: "`id` is not a UUID, or `version` or `format` is missing or unknown (the body lists the issues).",
      403: "The modpack is private and the caller is neither its owner nor a member (`Access denied`).",
      404: "No such modpack, or it is archived and the caller is not its owner.",
      500: "An unexpected failure; the body never carries its cause.",
    },
    async handler({ request, reply, caller, params, query }) {
      const file = await deps.current(caller, params.id, query.version);
      const body = bodyOf(file, query.format);
      const etag = strongTag(body);
      setCacheHeaders(request, reply, { scope: "public" }, etag);
      reply.header(CHECK_ERRORS_HEADER, String(file.errors));
      if (namesTag(request.headers["if-none-match"], etag)) return reply.code(304).send();
      return send(reply, MEDIA_TYPES[query.format], body);
    },
  });
  return routeModule([current]);
}

function send(reply: FastifyReply, mediaType: string, body: string) {
  return reply.code(200).header("content-type", mediaType).send(body);
}
