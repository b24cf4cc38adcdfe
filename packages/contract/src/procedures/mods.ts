import { z } from "zod";
import { resource } from "../ports.js";
import { idParams } from "../schemas/common.js";
import {
  acceptModAttributeSpelling,
  createdModSchema,
  modListInput,
  modPageSchema,
  modReferenceInput,
  modSchema,
  tagListSchema,
} from "../schemas/mod.js";
import { operation, rewriteInput, router } from "../trpc.js";

const tags = ["Catalogue"];

const updateAllResultSchema = z
  .object({ message: z.string(), jobId: z.string().nullable() })
  .meta({ id: "UpdateAllResult" });

export const modPorts = resource("mods", {
  list: { caller: "optional", input: modListInput, output: modPageSchema },
  tags: { output: tagListSchema },
  updateAll: { caller: true, output: updateAllResultSchema },
  /** Answers `created: false` with the catalogue's mod when it was already there. */
  create: { input: modReferenceInput, output: createdModSchema },
  /** The mod and the version of its row, the read's ETag. */
  get: { input: idParams, output: z.object({ mod: modSchema, version: z.string() }) },
  refresh: { caller: true, input: idParams, output: modSchema },
});
const { of: service, schemas, call } = modPorts;

export const modsRouter = router({
  list: operation({
    method: "GET",
    path: "/mods",
    tags,
    summary: "Search the mod catalogue",
    description:
      "Every mod the service knows, paged (default 20 a page). `search` matches name, description, workshop id or in-game id; `tags` matches any of the given tags; `modpackId` keeps the mods active in that modpack, which must be public or one the caller owns or is a member of (404 otherwise).",
    operationId: "listMods",
    success: "A page of the catalogue's mods.",
    public: true,
    errors: [404],
    cache: { scope: "public", privateWith: ["modpackId"] },
  })
    .concat(schemas.list)
    .query(call("list")),
  tags: operation({
    method: "GET",
    path: "/mods/tags",
    tags,
    summary: "List tags",
    description: "Every tag in the catalogue with how many mods carry it, most used first.",
    operationId: "listModTags",
    success: "Every tag of the catalogue, with how many mods carry it.",
    public: true,
    cache: { scope: "public" },
  })
    .concat(schemas.tags)
    .query(call("tags")),
  updateAll: operation({
    method: "POST",
    path: "/mods/update-all",
    tags,
    summary: "Check every mod for updates",
    description:
      "Queues a check of every catalogue mod against the workshop (it also runs daily). Owners and members of modpacks holding a changed mod are notified: update available, breaking change (in-game ids or map folders changed), or removed from the workshop. Answers 202 with the job id; a check already queued is reused.",
    operationId: "updateAllMods",
    success: "Accepted: every mod is refreshed from the workshop in the background.",
    permission: "mod.update-all",
    successStatus: 202,
    rateLimit: "workshop",
  })
    .concat(schemas.updateAll)
    .mutation(({ ctx }) => service(ctx).updateAll(ctx.caller)),
  create: operation({
    method: "POST",
    path: "/mods",
    tags,
    summary: "Add a mod to the catalogue",
    description:
      "Fetches a workshop item (by URL or id) and adds it to the catalogue. Answers 201 when added, 200 with the existing mod when it is already there. 422 for a collection, an item of another game, or a missing item; 502 when the workshop cannot be reached.",
    operationId: "createMod",
    success: "The mod was added to the catalogue from the workshop.",
    alreadyThere: "The mod was already in the catalogue: it is answered as it is, with `created: false`.",
    permission: "mod.create",
    successStatus: 201,
    errors: [422, 502],
    rateLimit: "workshop",
  })
    .use(rewriteInput(acceptModAttributeSpelling))
    .concat(schemas.create)
    .mutation(async ({ ctx, input }) => {
      const mod = await service(ctx).create(input);
      if (!mod.created) ctx.response.status = 200;
      return mod;
    }),
  get: operation({
    method: "GET",
    path: "/mods/{id}",
    tags,
    summary: "Read a mod",
    description: "One mod of the catalogue.",
    operationId: "getMod",
    success: "The mod.",
    public: true,
    errors: [404],
    cache: { scope: "public", validator: "mod" },
  })
    .input(idParams)
    .output(modSchema)
    .query(async ({ ctx, input }) => {
      const { mod, version } = await service(ctx).get(input);
      ctx.response.version = version;
      return mod;
    }),
  refresh: operation({
    method: "POST",
    path: "/mods/{id}/refresh",
    tags,
    summary: "Refresh a mod from the workshop",
    description:
      "Fetches the mod's workshop item again and updates its name, description, in-game ids, map folders and tags. A mod no longer on the workshop is marked inactive. 502 when the workshop cannot be reached. One user may have a bounded number of refreshes in progress at once (`MAX_RUNNING_REFRESHES_PER_USER`, default 2): past it, 429 with `Retry-After`.",
    operationId: "refreshMod",
    success: "The mod as the workshop describes it now.",
    permission: "mod.update",
    errors: [404, 429, 502],
    rateLimit: "workshop",
  })
    .concat(schemas.refresh)
    .mutation(({ ctx, input }) => service(ctx).refresh(ctx.caller, input)),
});
