import { resource } from "../ports.js";
import {
  revisionCompareInput,
  revisionComparisonSchema,
  revisionListInput,
  revisionPageSchema,
  revisionPathInput,
  revisionSchema,
} from "../schemas/revision.js";
import { operation, router } from "../trpc.js";

const tags = ["History"];

const readers =
  "Who may read: the owner and members, anyone for a public modpack (no credentials needed); without credentials a private one answers 401, a signed-in stranger or a token bound to other modpacks 403.";

export const revisionPorts = resource("revisions", {
  list: { modpack: true, input: revisionListInput, output: revisionPageSchema },
  /** 404 when the modpack has no such revision. */
  get: { modpack: true, input: revisionPathInput, output: revisionSchema },
  /** 404 when `from` or `to` names no revision of the modpack. */
  compare: { modpack: true, input: revisionCompareInput, output: revisionComparisonSchema },
  /** The new revision; the current one when the pack already had the revision's links, order and selection. */
  restore: { caller: true, modpack: true, input: revisionPathInput, output: revisionSchema },
});
const { of: service, schemas, call } = revisionPorts;

export const revisionsRouter = router({
  list: operation({
    method: "GET",
    path: "/modpacks/{id}/revisions",
    tags,
    summary: "List a modpack's revisions",
    description: `The modpack's numbered revisions, newest first, paged like the other lists. A revision is the state that goes into the pack's server file (its mods in load order, each one's selected and custom in-game ids, map folders and requirements), recorded whenever a change alters it: mods added (with the requirements they brought) or removed, the load order or selection changed, an import (one revision when it ends), a restore, a duplicate's first state, or the workshop changing a linked mod's ids, map folders or requirements (\`reason: workshop\`, no author). A change that leaves the state as it was (name, description, members, a workshop update that keeps the ids) records none. A new, empty modpack is at revision 0 and lists none. ${readers}`,
    operationId: "listModpackRevisions",
    success: "A page of the modpack's revisions, newest first.",
    public: true,
    modpackAccess: "read",
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.list)
    .query(call("list")),
  compare: operation({
    method: "GET",
    path: "/modpacks/{id}/revisions/compare",
    tags,
    summary: "What changed between two revisions",
    description: `The changes from revision \`from\` to revision \`to\` (the current one when left out), in that direction whichever number is larger: mods \`added\` and \`removed\`, mods \`moved\` (the fewest whose places changed relative to the others, with both places), mods whose written in-game ids changed (\`selectionChanged\`, before and after), and \`workshopUpdates\`: mods in both whose workshop item is newer at \`to\` than at \`from\` (with \`to\` left out, the catalogue's current date), newest first. The changelog to read before a restart. \`from=0\` compares with the empty pack. 404 when either names no revision. ${readers}`,
    operationId: "compareModpackRevisions",
    success: "What changed from `from` to `to`.",
    public: true,
    modpackAccess: "read",
    errors: [404],
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.compare)
    .query(call("compare")),
  get: operation({
    method: "GET",
    path: "/modpacks/{id}/revisions/{number}",
    tags,
    summary: "Read a revision",
    description: `One revision: its mods in load order, each with the in-game ids its server file writes per game version and its map folders, as they were when it was recorded. A past revision never changes. \`GET /modpacks/{id}/server-file?revision={number}\` serves its file. 404 when the modpack has no such revision. ${readers}`,
    operationId: "getModpackRevision",
    success: "The revision and its mods.",
    public: true,
    modpackAccess: "read",
    errors: [404],
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.get)
    .query(call("get")),
  restore: operation({
    method: "POST",
    path: "/modpacks/{id}/revisions/{number}/restore",
    tags,
    summary: "Restore a revision",
    description:
      "Makes the pack's links, load order and selection those of the revision, recorded as a new revision (`reason: restore`, 201, the new revision). Restoring what the pack already has records nothing (200, the current revision). A restore gives back the revision's choices, not its bytes (pin the file with `revision=` for that): selected ids a mod no longer has are dropped (the check then reports `nothing-selected`), and a mod since removed from the workshop comes back as a link that the check reports `unavailable`. 404 when the modpack has no such revision.",
    operationId: "restoreModpackRevision",
    success: "The revision was restored as a new revision.",
    alreadyThere:
      "The pack already had the revision's links, order and selection: nothing was recorded, the current revision is answered.",
    permission: "modpack.update",
    modpackAccess: "restore",
    successStatus: 201,
    errors: [404],
  })
    .concat(schemas.restore)
    .mutation(async ({ ctx, input }) => {
      const revision = await service(ctx).restore(ctx.caller, ctx.modpack, input);
      // No newer number than the pack had: nothing was recorded.
      if (revision.number <= ctx.modpack.modpack.revision) ctx.response.status = 200;
      return revision;
    }),
});
