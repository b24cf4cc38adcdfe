import { resource } from "../ports.js";
import { messageSchema } from "../schemas/common.js";
import {
  createModpackInput,
  duplicateModpackInput,
  modpackPageSchema,
  modpackSchema,
  modpacksWithModInput,
  myModpackListInput,
  publicModpackListInput,
  updateModpackInput,
} from "../schemas/modpack.js";
import { operation, router } from "../trpc.js";

const tags = ["Modpacks"];

export const modpackPorts = resource("modpacks", {
  listPublic: { input: publicModpackListInput, output: modpackPageSchema },
  listWithMod: { input: modpacksWithModInput, output: modpackPageSchema },
  listMine: { caller: true, input: myModpackListInput, output: modpackPageSchema },
  create: { caller: true, input: createModpackInput, output: modpackSchema },
  get: { modpack: true, output: modpackSchema },
  update: { modpack: true, input: updateModpackInput, output: modpackSchema },
  archive: { modpack: true, output: messageSchema },
  restore: { modpack: true, output: modpackSchema },
  duplicate: { caller: true, modpack: true, input: duplicateModpackInput, output: modpackSchema },
});
const { of: service, schemas, call } = modpackPorts;

export const modpacksRouter = router({
  listPublic: operation({
    method: "GET",
    path: "/modpacks/public",
    tags,
    summary: "List public modpacks",
    description:
      "Public, active modpacks, paged. `search` matches name or description (case-insensitive); sort by `createdAt` (default), `updatedAt` or `name`. `page` and `limit` outside their ranges answer 400 rather than being clamped.",
    operationId: "listPublicModpacks",
    success: "A page of public modpacks.",
    public: true,
    cache: { scope: "public" },
  })
    .concat(schemas.listPublic)
    .query(call("listPublic")),
  listWithMod: operation({
    method: "GET",
    path: "/mods/{id}/modpacks",
    tags,
    summary: "List the public modpacks that include a mod",
    description:
      "Public, active modpacks that have the mod among their active mods, paged, searched and sorted like the public list. 404 when the catalogue has no such mod; a mod no public modpack includes answers an empty page.",
    operationId: "listModpacksWithMod",
    success: "A page of public modpacks that include the mod.",
    public: true,
    errors: [404],
    cache: { scope: "public" },
  })
    .concat(schemas.listWithMod)
    .query(call("listWithMod")),
  getPublic: operation({
    method: "GET",
    path: "/modpacks/public/{id}",
    tags,
    summary: "Read a public modpack",
    description: "One public modpack with its active members. A private or archived modpack answers 404 here.",
    operationId: "getPublicModpack",
    success: "The public modpack with its active members.",
    public: true,
    modpackAccess: "public",
    modpackMembers: true,
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.get)
    .query(call("get")),
  listMine: operation({
    method: "GET",
    path: "/modpacks/my",
    tags,
    summary: "List your modpacks",
    description:
      "Modpacks you own or are an active member of, paged like the public list. Your archived modpacks are left out unless `includeArchived=true`.",
    operationId: "listMyModpacks",
    success: "A page of the modpacks you own or are a member of.",
    permission: "modpack.read",
  })
    .concat(schemas.listMine)
    .query(call("listMine")),
  create: operation({
    method: "POST",
    path: "/modpacks",
    tags,
    summary: "Create a modpack",
    description:
      "Creates a modpack owned by the caller: private unless `isPublic` is true, not verified, active. `platformWorkshopUrl` (a Steam Workshop URL) is stored and returned as `platformUrl`.",
    operationId: "createModpack",
    success: "The new modpack, owned by you.",
    permission: "modpack.create",
    successStatus: 201,
  })
    .concat(schemas.create)
    .mutation(({ ctx, input }) => service(ctx).create(ctx.caller, input)),
  get: operation({
    method: "GET",
    path: "/modpacks/{id}",
    tags,
    summary: "Read a modpack",
    description: "One modpack with its members.",
    operationId: "getModpack",
    success: "The modpack with its members.",
    permission: "modpack.read",
    modpackAccess: "read",
    modpackMembers: true,
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.get)
    .query(call("get")),
  update: operation({
    method: "PATCH",
    path: "/modpacks/{id}",
    tags,
    summary: "Update a modpack",
    description:
      "Changes the fields given and answers the updated modpack. `null` clears `description`, `avatarUrl` or `platformWorkshopUrl`; `metadata` replaces the stored object.",
    operationId: "updateModpack",
    success: "The modpack with the changes applied.",
    permission: "modpack.update",
    modpackAccess: "owner",
  })
    .concat(schemas.update)
    .mutation(({ ctx, input }) => service(ctx).update(ctx.modpack, input)),
  archive: operation({
    method: "DELETE",
    path: "/modpacks/{id}",
    tags,
    summary: "Archive a modpack",
    description:
      "Archives (soft-deletes) the modpack: it disappears for everyone but the owner, who can still read it, list it with `includeArchived=true`, and restore it. Archiving an archived modpack is a no-op.",
    operationId: "archiveModpack",
    success: "The modpack is archived.",
    permission: "modpack.archive",
    modpackAccess: "owner",
  })
    .concat(schemas.archive)
    .mutation(({ ctx }) => service(ctx).archive(ctx.modpack)),
  restore: operation({
    method: "POST",
    path: "/modpacks/{id}/restore",
    tags,
    summary: "Restore an archived modpack",
    description: "Makes an archived modpack active again and answers it. Restoring an active modpack is a no-op.",
    operationId: "restoreModpack",
    success: "The modpack, active again.",
    permission: "modpack.archive",
    modpackAccess: "owner",
  })
    .concat(schemas.restore)
    .mutation(({ ctx }) => service(ctx).restore(ctx.modpack)),
  duplicate: operation({
    method: "POST",
    path: "/modpacks/{id}/duplicate",
    tags,
    summary: "Duplicate a modpack",
    description:
      "Creates a new private modpack owned by the caller with the same active mods, load order and id selections, description, avatar, workshop URL and metadata; members are not copied. Its name is the one given, or the original's followed by ` (copy)` (shortened to fit 50 characters). Answers the new modpack, and sends the caller a notification.",
    operationId: "duplicateModpack",
    success: "The new modpack: private, owned by you, with the copied mods.",
    permission: "modpack.create",
    successStatus: 201,
    modpackAccess: "read",
  })
    .concat(schemas.duplicate)
    .mutation(({ ctx, input }) => service(ctx).duplicate(ctx.caller, ctx.modpack, input)),
});
