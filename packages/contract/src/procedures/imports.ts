import { resource } from "../ports.js";
import { importStartedSchema, importStatusSchema, startImportInput } from "../schemas/import.js";
import { operation, router } from "../trpc.js";

const tags = ["Import"];

export const importPorts = resource("imports", {
  start: { caller: true, modpack: true, input: startImportInput, output: importStartedSchema },
  status: { modpack: true, output: importStatusSchema },
});
const { of: service, schemas, call } = importPorts;

export const importsRouter = router({
  start: operation({
    method: "POST",
    path: "/modpacks/{id}/import",
    tags,
    summary: "Import a workshop collection",
    description:
      "Starts importing a Steam Workshop collection into the modpack and answers 202 at once; follow it with `GET /modpacks/{id}/import/status`. Nested collections are expanded; items that are collections, of another game, missing or banned count as failed. With a Steam API key configured, each item's required items are imported too. You are notified when it starts and when it ends. One import runs per modpack at a time (409). One user may have a bounded number of imports pending or running (`MAX_PENDING_IMPORTS_PER_USER`, default 3): past it, 429 with `Retry-After`; a user's imports run one at a time, so they never hold up other users'.",
    operationId: "startImport",
    success:
      "Accepted: the collection is imported in the background; follow it with the import status or its notification.",
    permission: "modpack.import",
    modpackAccess: "import",
    successStatus: 202,
    errors: [409, 429],
    rateLimit: "workshop",
  })
    .concat(schemas.start)
    .mutation(({ ctx, input }) => service(ctx).start(ctx.caller, ctx.modpack, input)),
  status: operation({
    method: "GET",
    path: "/modpacks/{id}/import/status",
    tags,
    summary: "The latest import's status",
    description:
      "The modpack's latest import: `pending`, `running` (with `progress`), `completed` (some items may have failed: see `modsFailed` and `failures`) or `failed` (the collection itself could not be read: see `error`). 404 when the modpack has never had an import.",
    operationId: "getImportStatus",
    success: "The latest import's status, progress and failures.",
    permission: "modpack.read",
    modpackAccess: "read",
  })
    .concat(schemas.status)
    .query(call("status")),
});
