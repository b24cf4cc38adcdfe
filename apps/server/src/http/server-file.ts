import { hash } from "node:crypto";
import {
  type Caller,
  type CurrentServerFile,
  currentServerFileQuery,
  currentServerFileSchema,
  patchServerFileQuery,
  type ServerFileFormat,
  type ServerFilePatch,
  type ServerImage,
  serverFilePatchSchema,
  uuid,
} from "@modpack/contract";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { httpError, sendError } from "../edge/errors.js";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";
import { renderEnvFile, SERVER_IMAGES } from "../server-file/formats.js";
import type { CurrentServerFile as RenderedFile, ServerFileRequest } from "../services/server-files.js";
import { setCacheHeaders } from "./caching.js";

export interface ServerFileRouteDependencies {
  /** The modpack's current server file, for a caller who may read it; throws the contract's typed errors. */
  current(caller: Caller | null, modpackId: string, request: ServerFileRequest): Promise<RenderedFile>;
  /** The owner's file with the modpack's current lines written into it; stores nothing. */
  patch(
    caller: Caller | null,
    modpackId: string,
    request: ServerFileRequest,
    text: string,
  ): Promise<ServerFilePatch & { errors: number; revision: number }>;
}

/** An uploaded `servertest.ini`, decoded. */
interface UploadedText {
  text: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads the bodies of this module's routes as strict UTF-8 `text/plain` (a leading byte order mark
 * kept): invalid bytes are a 400. The app's body limit answers 413 past 1 MiB, and its NUL check
 * a 400 for a NUL in the text.
 */
function readTextBodies(app: FastifyInstance): void {
  // Only the file itself: a JSON body here is a 415, not a value to guess at.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("text/plain", { parseAs: "buffer" }, (_request, body: Buffer, done) => {
    try {
      const uploaded: UploadedText = { text: utf8.decode(body) };
      done(null, uploaded);
    } catch {
      done(httpError(400, "The file is not valid UTF-8"), undefined);
    }
  });
}

const CHECK_ERRORS_HEADER = "modpack-check-errors";
const REVISION_HEADER = "modpack-revision";

const MEDIA_TYPES: Record<ServerFileFormat, string> = {
  ini: "text/plain; charset=utf-8",
  json: "application/json; charset=utf-8",
  env: "text/plain; charset=utf-8",
};

/** The bytes of one form of the current file. */
function bodyOf(file: RenderedFile, format: ServerFileFormat, image: ServerImage | undefined): string {
  if (format === "ini") return file.ini;
  if (format === "env") return renderEnvFile(file.header, file.lines, image);
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
  "Modpack-Check-Errors": z.string().regex(/^\d+$/).max(10).meta({
    description:
      "How many errors the modpack check finds for this version (`0` when none): a script may refuse to start on more",
    example: "0",
  }),
  "Modpack-Revision": z.string().regex(/^\d+$/).max(10).meta({
    description:
      "The revision the file is rendered from (`0`: a pack whose mods never changed): the pinned one, else the newest. Ask for `revision=` with it to get these bytes again",
    example: "3",
  }),
});

const INI_EXAMPLE =
  "# Modpack Collection Service\n# Modpack: My pack (0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d)\n# Game version: 42x\nMods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n";

const count = (what: string) => z.string().regex(/^\d+$/).max(10).meta({ description: what, example: "0" });
const changeHeaders = {
  "Mods-Added": count("In-game ids the patch added to `Mods=`"),
  "Mods-Removed": count("In-game ids the patch removed from `Mods=`"),
  "Workshop-Items-Added": count("Workshop ids the patch added to `WorkshopItems=`"),
  "Workshop-Items-Removed": count("Workshop ids the patch removed from `WorkshopItems=`"),
  "Map-Changed": z.enum(["true", "false"]).meta({ description: "Whether `Map=` changed (or was missing)" }),
};

const PATCH_EXAMPLE_INPUT =
  "PVP=true\r\n# Mods=kept as a comment\r\nMods=OldMod\r\nMap=MyTown;Muldraugh, KY\r\nPublic=false\r\n";
const PATCH_EXAMPLE_OUTPUT =
  "PVP=true\r\n# Mods=kept as a comment\r\nMods=\\Brita;\\Brita_2\r\nMap=MyTown;Muldraugh, KY\r\nPublic=false\r\nWorkshopItems=2200148440\r\n";

/** One line per image: its variables, how they are encoded, and the commit of its start script. */
const IMAGE_LINES = Object.entries(SERVER_IMAGES).map(
  ([image, spec]) =>
    `  - \`image=${image}\`: [${spec.repository}](https://github.com/${spec.repository}) (start script read at \`${spec.commit.slice(0, 12)}\`) reads ${spec.variables.map((variable) => `\`${variable.name}\``).join(", ")}; ${spec.step}.`,
);

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
      "- `format=env`: `KEY=value` lines as Docker's `--env-file` reads them (the header as `#` comments; Docker takes each value verbatim). Without `image`: the generic `MODS`, `WORKSHOP_ITEMS` and `MAP`, verbatim and `;` separated. With `image`, only the variables that image's start script reads, each encoded so that the script writes exactly the `json` form's lists into `Mods=`, `WorkshopItems=` (and `Map=` where it writes it from a variable):",
      ...IMAGE_LINES,
      "  - Why: a GNU `sed` replacement reads `\\` as an escape (`\\U`, `\\L`, `\\u`, `\\l`, `\\E` change case, `\\a` is a bell), `&` as the matched text, and `/` ends it, so a 42x `\\ModID` given verbatim to a `sed` image loses its `\\`. PepeCitron's image escapes `&` itself but writes the value verbatim with `echo` on its very first start, before its `.ini` exists: for a value holding `\\` or `/` (every 42x pack), start it once to create the `.ini`, then again; from then on every start writes it exactly.",
      "- `idForm`: how `Mods=` names each mod (with `version=41x` only `plain`, `400` otherwise). Which builds read which form:",
      "  - `backslash` (the default): `\\ModID`, the form Build 42's own mod menu writes. Read by every Build 42 server.",
      "  - `plain`: the bare `ModID`, as Build 41 writes it. Read by Build 42 too: its server removes every `\\` from `Mods=` and then splits it on `;` (`GameServer` in the decompiled 42.15 and 42.20.3 servers), and a 42.21 server was seen loading `KillCount` and `\\KillCount` alike (MCrank/ZWarden, docs/feature-plans/F291-one-click-install.md). pzmod's issue #25 reports that 42.20 went back to bare names.",
      "  - `workshop`: `WorkshopID\\ModID`, the form kldzj/pzmod writes and hosting guides call the DLMP format. No server code we could read parses it: the servers above remove the `\\` and so read one id made of both parts, which matches no mod. It is offered for the tools that read it; a server should use `backslash` or `plain`. It does not tell apart two workshop items shipping the same in-game id (the game keeps one mod per id), so the check's `id-clash` stands in every form.",
      "  Each form has its own `ETag`.",
      "",
      "`revision=<n>` pins the file to a revision (`GET /modpacks/{id}/revisions`): it is rendered from that revision's state alone, byte for byte the same whenever it is asked, whatever the catalogue has learned since; its header names the revision instead of the modpack's name and carries no finding, while today's check of the revision's mods is in `Modpack-Check-Errors` and the `json` form. A number the pack has not reached answers 404. Every answer carries `Modpack-Revision`, the revision it was rendered from.",
      "",
      "A modpack whose check finds errors still renders: the findings are in the header and the `json` form, and `Modpack-Check-Errors` counts the errors so a script can refuse to start. The `ETag` is a strong validator of the exact bytes of that version and format; `If-None-Match` answers `304` while they are the same, so a change of the modpack's description or members never looks like a new file.",
      "",
      "Public for a public modpack: anyone may read it without credentials. A private one needs a session cookie or Bearer token of its owner or a member: without credentials 401 `Unauthorized`, a signed-in stranger or a token bound to other modpacks 403 `Access denied`; an archived one is 404 to everyone but its owner.",
    ].join("\n"),
    permission: "public",
    optionalCaller: true,
    params: modpackParams,
    query: currentServerFileQuery,
    responses: {
      200: {
        description: "The current file in the asked format.",
        headers: checkErrorsHeader.extend({
          ETag: z.string().max(64).meta({ description: "A strong validator of the answer's bytes" }),
        }),
        content: {
          "text/plain": { schema: z.string(), example: INI_EXAMPLE },
          "application/json": { schema: currentServerFileSchema },
        },
      },
      304: { description: "`If-None-Match` names the current bytes: nothing changed.", headers: checkErrorsHeader },
    },
    errors: {
      400: "`id` is not a UUID, `version` is missing or unknown, `format`, `image` or `idForm` is unknown, or `idForm` is other than `plain` with `version=41x` (the body lists the issues).",
      401: "The modpack is private and the request carries no valid credentials (`Unauthorized`).",
      403: "The modpack is private and the caller is neither its owner nor a member, or its token is bound to other modpacks (`Access denied`).",
      404: "No such modpack, it is archived and the caller is not its owner, or it has no revision `revision`.",
      409: "`revision=last-good`, and no revision of the modpack has started cleanly on this version yet.",
      500: "An unexpected failure; the body never carries its cause.",
      503: "Too many server files are being rendered or waiting on this instance, or the database cannot answer now; retry after `Retry-After` seconds.",
    },
    async handler({ request, reply, caller, params, query }) {
      const { version, idForm, revision } = query;
      const file = await deps.current(caller, params.id, { version, idForm, revision });
      const body = bodyOf(file, query.format, query.image);
      const etag = strongTag(body);
      setCacheHeaders(request, reply, { scope: "public" }, etag);
      reply.header(CHECK_ERRORS_HEADER, String(file.errors)).header(REVISION_HEADER, String(file.revision));
      if (namesTag(request.headers["if-none-match"], etag)) return reply.code(304).send();
      return reply.code(200).header("content-type", MEDIA_TYPES[query.format]).send(body);
    },
  });
  const patch = defineRoute({
    method: "POST",
    path: "/modpacks/{id}/server-file/patch",
    tags: ["Server files"],
    operationId: "patchServerFile",
    // It stores nothing: a read of the modpack, open to read-only tokens.
    scope: "read",
    summary: "Patch a whole servertest.ini",
    description: [
      "Send your server's complete `servertest.ini` as `text/plain` (UTF-8, at most 1 MiB); the answer is the same file with only `Mods=`, `WorkshopItems=` and `Map=` set to the modpack's current lines (as `GET /modpacks/{id}/server-file` renders them). The first line of each is replaced where it stands, later lines of the same key are removed (the game would read the last one), and a missing one is appended at the end. Every other byte is kept: other settings, comments, blank lines, their order, `\\r\\n` or `\\n` line endings, a leading byte order mark, a missing final newline.",
      "",
      "Lines are read the way the game's server reads the file: a line whose text, trimmed of surrounding whitespace, starts with `#` is a comment (so `# Mods=...` is left alone); any other line holding `=` is a setting whose key is the text before the first `=`, trimmed, compared case-sensitively (`mods=` is not `Mods=`). A leading byte order mark belongs to no key.",
      "",
      "`Map=` is the modpack's map folders, then your own map folders from the file's `Map=` that no mod of the catalogue lists (in their order), then `Muldraugh, KY`.",
      "",
      "The change counts are in the headers (`Mods-Added`, `Mods-Removed`, `Workshop-Items-Added`, `Workshop-Items-Removed`, `Map-Changed`; ids compare without 42x's `\\`), and `format=json` answers `{ content, changes }`. `Modpack-Check-Errors` counts the modpack check's errors. Nothing is stored: the uploaded file is neither kept nor logged, so this is a read of the modpack.",
      "",
      "`idForm` writes `Mods=` in that id form and `revision` takes the lines of that revision, as for `GET /modpacks/{id}/server-file`; `Modpack-Revision` names the revision the lines are from.",
      "",
      "Who may call: as for `GET /modpacks/{id}/server-file`, anyone for a public modpack, its owner and members for a private one (401 `Unauthorized` without credentials, 403 `Access denied` for anyone else).",
    ].join("\n"),
    permission: "public",
    optionalCaller: true,
    params: modpackParams,
    query: patchServerFileQuery,
    requestBody: {
      description: "The server's whole `servertest.ini`, UTF-8.",
      content: {
        // The body limit is in bytes (1 MiB); a string of as many characters is the bound a schema can state.
        "text/plain": { schema: z.string().max(1024 * 1024), example: PATCH_EXAMPLE_INPUT },
      },
    },
    responses: {
      200: {
        description: "The patched file (`format=ini`) or the file and its changes (`format=json`).",
        headers: checkErrorsHeader.extend(changeHeaders),
        content: {
          "text/plain": { schema: z.string(), example: PATCH_EXAMPLE_OUTPUT },
          "application/json": { schema: serverFilePatchSchema },
        },
      },
    },
    errors: {
      400: "`id` is not a UUID, `version` is missing or unknown, `format` or `idForm` is unknown, `idForm` is other than `plain` with `version=41x`, no body was sent, or the file holds a NUL character or is not valid UTF-8.",
      401: "The modpack is private and the request carries no valid credentials (`Unauthorized`).",
      403: "The modpack is private and the caller is neither its owner nor a member, or its token is bound to other modpacks (`Access denied`).",
      404: "No such modpack, it is archived and the caller is not its owner, or it has no revision `revision`.",
      409: "`revision=last-good`, and no revision of the modpack has started cleanly on this version yet.",
      413: "The file is larger than 1 MiB.",
      415: "The body is not `text/plain`.",
      500: "An unexpected failure; the body never carries its cause.",
      503: "Too many server files are being rendered or waiting on this instance, or the database cannot answer now; retry after `Retry-After` seconds.",
    },
    async handler({ request, reply, caller, params, query }) {
      const uploaded = request.body as UploadedText | undefined;
      if (uploaded === undefined) {
        return sendError(reply, httpError(400, "Send the whole servertest.ini as a text/plain body"));
      }
      const { version, idForm, revision } = query;
      const patched = await deps.patch(caller, params.id, { version, idForm, revision }, uploaded.text);
      const { changes } = patched;
      reply
        .header("cache-control", "no-store")
        .header(CHECK_ERRORS_HEADER, String(patched.errors))
        .header(REVISION_HEADER, String(patched.revision))
        .header("mods-added", String(changes.modsAdded))
        .header("mods-removed", String(changes.modsRemoved))
        .header("workshop-items-added", String(changes.workshopItemsAdded))
        .header("workshop-items-removed", String(changes.workshopItemsRemoved))
        .header("map-changed", String(changes.mapChanged));
      if (query.format === "json") {
        const json: ServerFilePatch = { content: patched.content, changes };
        return reply.code(200).header("content-type", MEDIA_TYPES.json).send(JSON.stringify(json));
      }
      return reply.code(200).header("content-type", MEDIA_TYPES.ini).send(patched.content);
    },
  });
  return routeModule([current, patch], readTextBodies);
}
