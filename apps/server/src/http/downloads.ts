import { type Caller, type GameVersion, uuid } from "@modpack/contract";
import { create as contentDisposition } from "content-disposition";
import { z } from "zod";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";

export interface DownloadRouteDependencies {
  /**
   * A completed export the caller may see, without its file: a validator of the file's content and
   * how to read it. Throws the contract's typed errors.
   */
  find(caller: Caller, exportId: string): Promise<{ validator: string; file(): Promise<ServerFile> }>;
}

export interface ServerFile {
  fileName: string;
  modpackName: string;
  version: GameVersion;
  content: string;
}

/** Characters no file name may hold on common systems: path separators, reserved ones and controls. */
const UNSAFE_FILE_NAME = /[\p{Cc}/\\:*?"<>|]+/gu;

/**
 * The attachment header of a server file (RFC 6266): `filename` is the ASCII slug name
 * (`<slug>-<version>.ini`); a modpack whose name is not plain ASCII also gets its own name as
 * `filename*` (UTF-8), which browsers prefer.
 */
export function attachmentHeader(file: { fileName: string; modpackName: string; version: GameVersion }): string {
  if (/^[\x20-\x7e]*$/.test(file.modpackName)) return contentDisposition(file.fileName, { type: "attachment" });
  const readable = `${file.modpackName.replace(UNSAFE_FILE_NAME, "_").trim() || "modpack"}-${file.version}.ini`;
  return contentDisposition(readable, { type: "attachment", fallback: file.fileName });
}

const DOWNLOAD_PATH = "/modpacks/export/{exportId}/download";

/** The absolute URL of an export's download route, under the service's external base URL. */
export function downloadUrls(publicUrl: string): (exportId: string) => string {
  return (exportId) => `${publicUrl}${DOWNLOAD_PATH.replace("{exportId}", encodeURIComponent(exportId))}`;
}

const etagHeader = z
  .string()
  .max(128)
  .meta({ description: "The file's version; send it back in `If-None-Match` to get a 304." });

/** `GET /modpacks/export/{exportId}/download`: the generated server file as an attachment. */
export function downloadRoutes(deps: DownloadRouteDependencies): RouteModule {
  const download = defineRoute({
    method: "GET",
    path: DOWNLOAD_PATH,
    tags: ["Server files"],
    operationId: "downloadServerFile",
    summary: "Download a server file",
    description:
      "The generated `servertest.ini` of a completed export, as an attachment named `<modpack-slug>-<version>.ini` (`text/plain; charset=utf-8`). The requester may always download it; anyone else must be able to read the modpack (its owner, a member, or anyone when it is public). 409 while the export is `pending` or `running`, and when it `failed` (the message says why).",
    permission: "modpack.export",
    params: z.object({
      exportId: uuid.meta({ description: "The `exportId` answered by `POST /modpacks/{id}/server-file`." }),
    }),
    responses: {
      200: {
        description: "The server file.",
        headers: z.object({
          ETag: etagHeader,
          "Content-Disposition": z.string().meta({
            description:
              "`attachment; filename=\"<modpack-slug>-<version>.ini\"`, plus `filename*=UTF-8''<modpack name>-<version>.ini` when the modpack's name is not plain ASCII (RFC 6266)",
          }),
        }),
        content: {
          "text/plain": {
            schema: z.string(),
            example:
              "# Modpack Collection Service\n# Modpack: My pack (0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d)\n# Game version: 41x\n# Generated: 2026-11-21T12:00:00.000Z\nMods=Brita;Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
          },
        },
      },
      304: {
        description: "Not modified: `If-None-Match` names the file's `ETag` (a completed file never changes); no body.",
        headers: z.object({ ETag: etagHeader }),
      },
    },
    errors: {
      400: "`exportId` is not a UUID (the body lists the issues).",
      403: "The role lacks `modpack.export` (`Do not have permission`), or the caller is neither the requester nor allowed to read the modpack (`Access denied`).",
      404: "No such export, or its modpack is archived and the caller is neither its owner nor the requester.",
      409: "The file is not ready yet, or it could not be generated.",
      500: "An unexpected failure; the body never carries its cause.",
    },
    async handler({ request, reply, caller, params }) {
      const found = await deps.find(caller, params.exportId);
      // A completed export's file never changes: 304 from the export's row alone, the file unread.
      const etag = `"${found.validator}"`;
      reply.header("etag", etag);
      if (request.headers["if-none-match"]?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
        return reply.code(304).header("cache-control", "private, no-store").send();
      }
      const file = await found.file();
      return reply
        .code(200)
        .header("content-type", "text/plain; charset=utf-8")
        .header("content-disposition", attachmentHeader(file))
        .header("cache-control", "private, no-store")
        .send(file.content);
    },
  });
  return routeModule([download]);
}
