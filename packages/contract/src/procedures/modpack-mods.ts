import { resource } from "../ports.js";
import { messageSchema } from "../schemas/common.js";
import {
  acceptModAttributeSpelling,
  addModpackModInput,
  modpackModLinkSchema,
  modpackModListInput,
  modpackModPageSchema,
  removeModpackModInput,
} from "../schemas/mod.js";
import { operation, rewriteInput, router } from "../trpc.js";

const tags = ["Mods of a modpack"];

export const modpackModPorts = resource("modpackMods", {
  list: { modpack: true, input: modpackModListInput, output: modpackModPageSchema },
  /** Answers `created: false` with the existing link when the mod was already in the modpack. */
  add: { caller: true, modpack: true, input: addModpackModInput, output: modpackModLinkSchema },
  /** 409 when other active mods of the modpack require it, unless `force`. */
  remove: { caller: true, modpack: true, input: removeModpackModInput, output: messageSchema },
});
const { of: service, schemas, call } = modpackModPorts;

export const modpackModsRouter = router({
  list: operation({
    method: "GET",
    path: "/modpacks/{id}/mods",
    tags,
    summary: "List a modpack's mods",
    description:
      "The modpack's active mods, paged; by default in the order they were added. `search` matches name, description or workshop id (case-insensitive) or an exact in-game id; `tags` matches mods carrying any of the given tags.",
    operationId: "listModpackMods",
    success: "A page of the modpack's active mods.",
    permission: "modpack.read",
    modpackAccess: "read",
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.list)
    .query(call("list")),
  add: operation({
    method: "POST",
    path: "/modpacks/{id}/mods",
    tags,
    summary: "Add a mod to a modpack",
    description:
      "`modAtribute` (or `modAttribute`) is a Steam Workshop URL, a workshop id, or an in-game mod id already in the catalogue. A workshop item not yet in the catalogue is fetched from the workshop first. The workshop items the mod requires (directly or through another requirement) that the modpack lacks are added too, from the catalogue or fetched, and listed in `dependenciesAdded` (empty when none); a requirement that cannot be found is left to `GET /modpacks/{id}/check` to report. Answers 201 with the link when the mod is added (or re-added after removal), 200 with the existing link when it is already in the modpack (`created` tells which). 422 for a collection, an item of another game, a missing item, or an unknown in-game id; 502 when the workshop cannot be reached.",
    operationId: "addModpackMod",
    success: "The mod was added to the modpack (or re-added after removal).",
    alreadyThere: "The mod was already in the modpack: nothing changed, the existing link is answered.",
    permission: "modpack.add-mod",
    modpackAccess: "add-mod",
    successStatus: 201,
    errors: [422, 502],
    rateLimit: "workshop",
  })
    .use(rewriteInput(acceptModAttributeSpelling))
    .concat(schemas.add)
    .mutation(async ({ ctx, input }) => {
      const link = await service(ctx).add(ctx.caller, ctx.modpack, input);
      if (!link.created) ctx.response.status = 200;
      return link;
    }),
  remove: operation({
    method: "DELETE",
    path: "/modpacks/{id}/mods/{modId}",
    tags,
    summary: "Remove a mod from a modpack",
    description:
      "Removes the mod from the modpack (the link is kept inactive, so adding it again restores it). 404 if the mod is not active in the modpack. 409 when other active mods of the modpack require it (the message names them); `force=true` removes it anyway.",
    operationId: "removeModpackMod",
    success: "The mod was removed from the modpack.",
    permission: "modpack.remove-mod",
    modpackAccess: "remove-mod",
    errors: [409],
  })
    .concat(schemas.remove)
    .mutation(({ ctx, input }) => service(ctx).remove(ctx.caller, ctx.modpack, input)),
});
