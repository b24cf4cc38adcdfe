import { resource } from "../ports.js";
import {
  exportConfigurationSchema,
  exportIdInput,
  exportRequestedSchema,
  exportStatusSchema,
  requestServerFileInput,
  saveExportConfigurationInput,
} from "../schemas/export.js";
import { operation, router } from "../trpc.js";

const tags = ["Server files"];

export const exportPorts = resource("exports", {
  /** The requester, or anyone who may read the modpack, may see an export. */
  get: { caller: true, input: exportIdInput, output: exportStatusSchema },
  getConfiguration: { modpack: true, output: exportConfigurationSchema },
  saveConfiguration: {
    caller: true,
    modpack: true,
    input: saveExportConfigurationInput,
    output: exportConfigurationSchema,
  },
  request: { caller: true, modpack: true, input: requestServerFileInput, output: exportRequestedSchema },
});
const { of: service, schemas, call } = exportPorts;

export const exportsRouter = router({
  status: operation({
    method: "GET",
    path: "/modpacks/export/{exportId}",
    tags,
    summary: "A server file's status",
    description:
      "The status of a server-file export: `pending`, `running`, `completed` (with `downloadUrl`) or `failed`. The requester, or anyone who may read the modpack, may ask; others get 403, an unknown id 404.",
    operationId: "getExport",
    success: "The server file request: its status and, once completed, where to download the file.",
    permission: "modpack.export",
    errors: [403, 404],
  })
    .concat(schemas.get)
    .query(call("get")),
  getConfiguration: operation({
    method: "GET",
    path: "/modpacks/{id}/export-configuration",
    tags,
    summary: "The export configuration",
    description:
      "The modpack's load order and per-mod in-game id selection, shared by its editors. Until saved, and for mods added since, it defaults to the active mods in the order they were added with every in-game id selected; removed mods drop out.",
    operationId: "getExportConfiguration",
    success: "The modpack's load order and in-game id selection.",
    permission: "modpack.read",
    modpackAccess: "read",
  })
    .concat(schemas.getConfiguration)
    .query(call("getConfiguration")),
  saveConfiguration: operation({
    method: "PUT",
    path: "/modpacks/{id}/export-configuration",
    tags,
    summary: "Save the export configuration",
    description:
      "Saves the load order (`modsOrder`) and in-game id selection (`modConfig`) and answers the configuration as it now applies. A `modConfig` entry may add `customPlatformModIds`: in-game ids given by hand (for a mod whose description names none), always written after the mod's selected ids; 400 when one holds `;`, `=`, a control character or a line separator, is longer than 200 characters, repeats, or there are more than 50. Active mods missing from `modsOrder` keep their place after the listed ones, in the order they were added. 422 for a mod id not active in the modpack or a selected id that is not one of the mod's in-game ids; 400 for a repeated mod id.",
    operationId: "saveExportConfiguration",
    success: "The saved load order and in-game id selection.",
    permission: "modpack.export",
    modpackAccess: "configure",
    errors: [422],
  })
    .concat(schemas.saveConfiguration)
    .mutation(({ ctx, input }) => service(ctx).saveConfiguration(ctx.caller, ctx.modpack, input)),
  requestServerFile: operation({
    method: "POST",
    path: "/modpacks/{id}/server-file",
    tags,
    summary: "Generate a servertest.ini",
    description:
      "Queues the generation of a `servertest.ini` (`Mods=`, `WorkshopItems=`, `Map=` lines) for game version `41x` or `42x` from the export configuration, and answers 202 with the `exportId`. You are notified when the file is ready; then download it from `GET /modpacks/export/{exportId}/download`.\n\nThe file is rendered from the export configuration saved when it runs, so asking again for the same modpack and version while your earlier request is still `pending` answers that request's `exportId` instead of queueing another. One user may have a bounded number of server files pending or running (`MAX_PENDING_EXPORTS_PER_USER`, default 20): past it, 429 with `Retry-After`.",
    operationId: "requestServerFile",
    success: "Accepted: the file is generated in the background; poll the export or wait for its notification.",
    permission: "modpack.export",
    modpackAccess: "read",
    successStatus: 202,
    errors: [429],
  })
    .concat(schemas.request)
    .mutation(({ ctx, input }) => service(ctx).request(ctx.caller, ctx.modpack, input)),
});
