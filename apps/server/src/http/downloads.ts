import { type Caller, messages, roleHasPermission, uuid } from "@modpack/contract";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { Authenticate, RouteModule } from "./app.js";
import { errorBody } from "./errors.js";

export interface DownloadRouteDependencies {
  authenticate: Authenticate;
  /** The file of a completed export the caller may see; throws the contract's typed errors. */
  load(caller: Caller, exportId: string): Promise<{ fileName: string; content: string }>;
}

/** Answers a typed error the way the REST procedures do; anything else goes to the app's error handler. */
function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof TRPCError) || error.code === "INTERNAL_SERVER_ERROR") throw error;
  const status = getHTTPStatusCodeFromError(error);
  return reply.code(status).send(errorBody({ status, message: error.message }));
}

/** `filename="..."` for Content-Disposition: quotes, backslashes and non-ASCII can't break the header. */
function dispositionFileName(fileName: string): string {
  return fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
}

/** `GET /modpacks/export/{exportId}/download`: the generated server file as an attachment. */
export function downloadRoutes(deps: DownloadRouteDependencies): RouteModule {
  const plugin: FastifyPluginAsync = async (app) => {
    app.get<{ Params: { exportId: string } }>("/modpacks/export/:exportId/download", async (request, reply) => {
      const caller = await deps.authenticate(request, reply);
      if (!caller) return reply.code(401).send(errorBody({ status: 401, message: messages.unauthorized }));
      if (!roleHasPermission(caller.role, "modpack.export")) {
        return reply.code(403).send(errorBody({ status: 403, message: messages.noPermission }));
      }
      const exportId = uuid.safeParse(request.params.exportId);
      if (!exportId.success) {
        return reply.code(400).send(
          errorBody({
            status: 400,
            message: "Invalid input",
            issues: exportId.error.issues.map((issue) => ({ path: "exportId", message: issue.message })),
          }),
        );
      }
      let file: { fileName: string; content: string };
      try {
        file = await deps.load(caller, exportId.data);
      } catch (error) {
        return sendError(reply, error);
      }
      return reply
        .code(200)
        .header("content-type", "text/plain; charset=utf-8")
        .header("content-disposition", `attachment; filename="${dispositionFileName(file.fileName)}"`)
        .header("cache-control", "private, no-store")
        .send(file.content);
    });
  };

  const errorResponse = (description: string, ref = "#/components/schemas/Error") => ({
    description,
    content: { "application/json": { schema: { $ref: ref } } },
  });

  return {
    plugin,
    paths: {
      "/modpacks/export/{exportId}/download": {
        get: {
          tags: ["Export"],
          operationId: "downloadServerFile",
          summary: "Download a server file",
          description:
            "The generated `servertest.ini` of a completed export, as an attachment named `<modpack-slug>-<version>.ini` (`text/plain; charset=utf-8`). The requester may always download it; anyone else must be able to read the modpack (its owner, a member, or anyone when it is public). 409 while the export is `pending` or `running`, and when it `failed` (the message says why).\n\nRequires a signed-in caller (session cookie or Bearer token) whose role holds `modpack.export`.",
          "x-permission": "modpack.export",
          security: [{ cookieAuth: [] }, { bearerAuth: [] }],
          parameters: [
            {
              name: "exportId",
              in: "path",
              required: true,
              description: "The `exportId` answered by `POST /modpacks/{id}/server-file`.",
              schema: { type: "string", format: "uuid" },
            },
          ],
          responses: {
            "200": {
              description: "The server file.",
              headers: {
                "Content-Disposition": {
                  description: '`attachment; filename="<modpack-slug>-<version>.ini"`',
                  schema: { type: "string" },
                },
              },
              content: {
                "text/plain": {
                  schema: { type: "string" },
                  example:
                    "# Modpack Collection Service\n# Modpack: My pack (0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d)\n# Game version: 41x\n# Generated: 2026-11-21T12:00:00.000Z\nMods=Brita;Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
                },
              },
            },
            "400": errorResponse("`exportId` is not a UUID (the body lists the issues)."),
            "401": errorResponse("No valid session cookie or Bearer token.", "#/components/schemas/Unauthorized"),
            "403": {
              description:
                "The role lacks `modpack.export` (`Do not have permission`), or the caller is neither the requester nor allowed to read the modpack (`Access denied`).",
              content: {
                "application/json": {
                  schema: {
                    oneOf: [{ $ref: "#/components/schemas/NoPermission" }, { $ref: "#/components/schemas/Error" }],
                  },
                },
              },
            },
            "404": errorResponse(
              "No such export, or its modpack is archived and the caller is neither its owner nor the requester.",
            ),
            "409": errorResponse("The file is not ready yet, or it could not be generated."),
            "500": errorResponse("An unexpected failure; the body never carries its cause."),
          },
        },
      },
    },
  };
}
