import { messageSchema } from "../schemas/common.js";
import {
  addModpackModInput,
  modpackModLinkSchema,
  modpackModListInput,
  modpackModPageSchema,
  modpackModPathInput,
} from "../schemas/mod.js";
import { modpackProcedure, operation, router } from "../trpc.js";

const tags = ["Modpack mods"];

export const modpackModsRouter = router({
  list: modpackProcedure
    .meta(
      operation({
        method: "GET",
        path: "/modpacks/{id}/mods",
        tags,
        summary: "List a modpack's mods",
        description:
          "The modpack's active mods, paged; by default in the order they were added. `search` matches name, description or workshop id (case-insensitive) or an exact in-game id; `tags` matches mods carrying any of the given tags.",
        operationId: "listModpackMods",
        permission: "modpack.read",
        modpackAccess: "read",
      }),
    )
    .input(modpackModListInput)
    .output(modpackModPageSchema)
    .query(({ ctx, input }) => ctx.services.modpackMods.list(ctx.modpack, input)),
  add: modpackProcedure
    .meta(
      operation({
        method: "POST",
        path: "/modpacks/{id}/mods",
        tags,
        summary: "Add a mod to a modpack",
        description:
          "`modAtribute` (or `modAttribute`) is a Steam Workshop URL, a workshop id, or an in-game mod id already in the catalogue. A workshop item not yet in the catalogue is fetched from the workshop first. Answers 201 with the link when the mod is added (or re-added after removal), 200 with the existing link when it is already in the modpack (`created` tells which). 422 for a collection, an item of another game, a missing item, or an unknown in-game id; 502 when the workshop cannot be reached.",
        operationId: "addModpackMod",
        permission: "modpack.add-mod",
        modpackAccess: "add-mod",
        successStatus: 201,
        errors: [422, 502],
      }),
    )
    .input(addModpackModInput)
    .output(modpackModLinkSchema)
    .mutation(({ ctx, input }) =>
      ctx.services.modpackMods.add(ctx.caller, ctx.modpack, input.modAtribute ?? input.modAttribute ?? ""),
    ),
  remove: modpackProcedure
    .meta(
      operation({
        method: "DELETE",
        path: "/modpacks/{id}/mods/{modId}",
        tags,
        summary: "Remove a mod from a modpack",
        description:
          "Removes the mod from the modpack (the link is kept inactive, so adding it again restores it). 404 if the mod is not active in the modpack.",
        operationId: "removeModpackMod",
        permission: "modpack.remove-mod",
        modpackAccess: "remove-mod",
      }),
    )
    .input(modpackModPathInput)
    .output(messageSchema)
    .mutation(({ ctx, input }) => ctx.services.modpackMods.remove(ctx.caller, ctx.modpack, input.modId)),
});
