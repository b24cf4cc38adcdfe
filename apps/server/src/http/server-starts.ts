import type { Readable } from "node:stream";
import {
  type Caller,
  MAX_START_LOG_BYTES,
  type ServerStart,
  serverStartQuery,
  serverStartSchema,
  uuid,
} from "@modpack/contract";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { httpError, sendError } from "../edge/errors.js";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";
import { createLogScanner, type LogScan, MAX_LINE } from "../server-log/scan.js";
import type { StartReport } from "../services/server-starts.js";

export interface ServerStartRouteDependencies {
  /** Records a start report for a caller who may report on the modpack; throws the contract's typed errors. */
  record(caller: Caller, modpackId: string, report: StartReport, scan: LogScan): Promise<ServerStart>;
}

/**
 * A log arrives as its request's stream: read line by line, never held whole. It is handed over by
 * a function, so the app's check of bodies for NUL characters (which walks a parsed body's values)
 * never walks the stream's buffers.
 */
interface StreamedBody {
  stream: () => Readable;
}

function readStreamedBodies(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("text/plain", (_request, payload, done) => {
    const body: StreamedBody = { stream: () => payload };
    done(null, body);
  });
}

/**
 * Scans a log as it arrives: bytes are decoded as UTF-8 (invalid sequences become U+FFFD) and split
 * into lines, each handed to the scanner and dropped, so memory stays flat whatever the log's size.
 * Past `MAX_START_LOG_BYTES` it stops with a 413, leaving the request open (`destroyOnReturn: false`)
 * so that the app drains the rest of the body and the client reads the answer rather than a reset.
 */
async function scanStream(stream: Readable): Promise<LogScan> {
  const scanner = createLogScanner();
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let bytes = 0;
  let rest = "";
  /** Inside a line longer than any game line: its start was read, the rest is skipped. */
  let skipping = false;
  for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_START_LOG_BYTES) throw httpError(413, "The log is larger than 16 MiB");
    const text = rest + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      if (!skipping) scanner.line(text.slice(start, end));
      skipping = false;
      start = end + 1;
    }
    rest = text.slice(start);
    // A line without an end in sight is read up to MAX_LINE, then skipped to its end.
    if (rest.length > MAX_LINE) {
      if (!skipping) scanner.line(rest.slice(0, MAX_LINE));
      skipping = true;
      rest = "";
    }
  }
  rest += decoder.decode();
  if (rest !== "" && !skipping) scanner.line(rest);
  return scanner.result();
}

const modpackParams = z.object({ id: uuid.meta({ description: "The modpack's id" }) });

const LOG_EXAMPLE = [
  "LOG  : General      f:0 st:34,832,371> version=42.20.4 b0bbce05d5 demo=false",
  'WARN : Mod          f:0 st:34,851,916> ZomboidFileSystem.loadModAndRequired> required mod "Brita_2" not found',
  "LOG  : Mod          f:0 st:34,851,920> loading Brita",
  "LOG  : Network      f:0 st:34,907,676> *** SERVER STARTED ****",
  "",
].join("\n");

/** `POST /modpacks/{id}/server-starts`: what a server's own log said of its start. */
export function serverStartRoutes(deps: ServerStartRouteDependencies): RouteModule {
  const report = defineRoute({
    method: "POST",
    path: "/modpacks/{id}/server-starts",
    tags: ["Server starts"],
    operationId: "reportServerStart",
    scope: "report",
    summary: "Report a server start",
    description: [
      "Send the server's console log as `text/plain` (from the start up to the server being up, or to its end; at most 16 MiB, `413` beyond): the service reads it as it arrives, in constant memory, replaces invalid UTF-8, and keeps only what it finds, never the log. It reads the log as the game writes it: Build 41 and Build 42 lines, the console form and the debug-log file form with its timestamps, `\\n` or `\\r\\n`, the prefixes of `docker logs` and `docker compose logs`, and other programs' lines in between. It finds the in-game ids the server loaded, whether it reached `*** SERVER STARTED ***`, and:",
      "",
      '- `mod-not-found` (error): `required mod "…" not found`;',
      "- `workshop-download-failed` (error): a workshop item the server could not download;",
      "- `not-started` (error): an exception before the server was up, when it never came up, or `exitCode` (the process ended before it was up);",
      "- `lua-error` (warning): an error raised from a mod's Lua file (a stack trace, a failed `require`).",
      "",
      "Each finding names the pack's mod it concerns where the log allows (by in-game id, workshop id, workshop folder or the title a stack trace names). What the log shows after the server is up does not change the outcome: `started` (up, no error finding), `failed` (an error finding) or `incomplete` (neither). `revision` is the revision whose file the server started with (the `Modpack-Revision` of the file it fetched), the current one when left out. A report whose revision is `started` makes it the version's `lastGoodRevision`; a `failed` one notifies the owner.",
      "",
      'Who may report: the owner and members, with a session or a token holding `write` or `report` (`{ "scopes": ["read", "report"], "modpackIds": ["<id>"] }` is a start script\'s token: it may read the pack and report, and change nothing). A signed-in stranger gets 403 even on a public modpack.',
    ].join("\n"),
    permission: "modpack.read",
    // The scan enforces it (Fastify reads no streamed body); the app's drain of a refused body reads by it.
    bodyLimit: MAX_START_LOG_BYTES,
    params: modpackParams,
    query: serverStartQuery,
    requestBody: {
      description: "The server's console log, UTF-8 (invalid bytes are replaced).",
      content: { "text/plain": { schema: z.string().max(MAX_START_LOG_BYTES), example: LOG_EXAMPLE } },
    },
    responses: {
      201: {
        description: "The report: its outcome, the mods loaded and the findings.",
        content: { "application/json": { schema: serverStartSchema } },
      },
    },
    errors: {
      400: "`id` is not a UUID, `version` is missing or unknown, `revision` or `exitCode` is not a number, or no body was sent.",
      403: "The caller is neither the owner nor a member of the modpack, or its token holds neither `write` nor `report`.",
      404: "No such modpack, it is archived, or it has no revision `revision`.",
      413: "The log is larger than 16 MiB.",
      415: "The body is not `text/plain`.",
      500: "An unexpected failure; the body never carries its cause.",
      503: "The database cannot answer now; retry after `Retry-After` seconds.",
    },
    async handler({ request, reply, caller, params, query }) {
      const body = request.body as StreamedBody | undefined;
      if (body === undefined) return sendError(reply, httpError(400, "Send the server's log as a text/plain body"));
      const scan = await scanStream(body.stream());
      const recorded = await deps.record(caller, params.id, query, scan);
      return reply
        .code(201)
        .header("cache-control", "no-store")
        .type("application/json")
        .send(JSON.stringify(recorded));
    },
  });
  return routeModule([report], readStreamedBodies);
}
