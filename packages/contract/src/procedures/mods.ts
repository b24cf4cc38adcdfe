import { z } from "zod";
import { idParams } from "../schemas/common.js";
import {
  createdModSchema,
  modListInput,
  modPageSchema,
  modReferenceInput,
  modSchema,
  tagListSchema,
} from "../schemas/mod.js";
import { operation, protectedProcedure, publicProcedure, router } from "../trpc.js";

const tags = ["Mods"];

export const modsRouter = router({
  list: publicProcedure
    .meta(
      operation({
        method: "GET",
        path: "/mods",
        tags,
        summary: "Search the mod catalogue",
        description:
          "Every mod the service knows, paged (default 20 a page). `search` matches name, description, workshop id or in-game id; `tags` matches any of the given tags; `modpackId` keeps the mods active in that modpack, which must be public or one the caller owns or is a member of (404 otherwise).",
        operationId: "listMods",
        public: true,
        errors: [404],
      }),
    )
    .input(modListInput)
    .output(modPageSchema)
    .query(({ ctx, input }) => ctx.services.mods.list(ctx.caller, input)),
  tags: publicProcedure
    .meta(
      operation({
        method: "GET",
        path: "/mods/tags",
        tags,
        summary: "List tags",
        description: "Every tag in the catalogue with how many mods carry it, most used first.",
        operationId: "listModTags",
        public: true,
      }),
    )
    .input(z.void())
    .output(tagListSchema)
    .query(({ ctx }) => ctx.services.mods.tags()),
  updateAll: protectedProcedure
    .meta(
      operation({
        method: "POST",
        path: "/mods/update-all",
        tags,
        summary: "Check every mod for updates",
        description:
          "Queues a check of every catalogue mod against the workshop (it also runs daily). Owners and members of modpacks holding a changed mod are notified: update available, breaking change (in-game ids or map folders changed), or removed from the workshop. Answers 202 with the job id; a check already queued is reused.",
        operationId: "updateAllMods",
        permission: "mod.update-all",
        successStatus: 202,
      }),
    )
    .input(z.void())
    .output(z.object({ message: z.string(), jobId: z.string().nullable() }).meta({ id: "UpdateAllResult" }))
    .mutation(({ ctx }) => ctx.services.mods.updateAll(ctx.caller)),
  create: protectedProcedure
    .meta(
      operation({
        method: "POST",
        path: "/mods",
        tags,
        summary: "Add a mod to the catalogue",
        description:
          "Fetches a workshop item (by URL or id) and adds it to the catalogue. Answers 201 when added, 200 with the existing mod when it is already there. 422 for a collection, an item of another game, or a missing item; 502 when the workshop cannot be reached.",
        operationId: "createMod",
        permission: "mod.create",
        successStatus: 201,
        errors: [422, 502],
      }),
    )
    .input(modReferenceInput)
    .output(createdModSchema)
    .mutation(({ ctx, input }) => ctx.services.mods.create(ctx.caller, input.modAtribute ?? input.modAttribute ?? "")),
  get: publicProcedure
    .meta(
      operation({
        method: "GET",
        path: "/mods/{id}",
        tags,
        summary: "Read a mod",
        description: "One mod of the catalogue.",
        operationId: "getMod",
        public: true,
        errors: [404],
      }),
    )
    .input(idParams)
    .output(modSchema)
    .query(({ ctx, input }) => ctx.services.mods.get(input.id)),
  refresh: protectedProcedure
    .meta(
      operation({
        method: "POST",
        path: "/mods/{id}/refresh",
        tags,
        summary: "Refresh a mod from the workshop",
        description:
          "Fetches the mod's workshop item again and updates its name, description, in-game ids, map folders and tags. A mod no longer on the workshop is marked inactive. 502 when the workshop cannot be reached.",
        operationId: "refreshMod",
        permission: "mod.update",
        errors: [404, 502],
      }),
    )
    .input(idParams)
    .output(modSchema)
    .mutation(({ ctx, input }) => ctx.services.mods.refresh(ctx.caller, input.id)),
});
