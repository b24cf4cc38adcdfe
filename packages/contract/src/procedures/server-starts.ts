import { resource } from "../ports.js";
import { serverStartListInput, serverStartPageSchema } from "../schemas/server-start.js";
import { operation, router } from "../trpc.js";

const tags = ["Server starts"];

export const serverStartPorts = resource("serverStarts", {
  list: { modpack: true, input: serverStartListInput, output: serverStartPageSchema },
});
const { schemas, call } = serverStartPorts;

export const serverStartsRouter = router({
  list: operation({
    method: "GET",
    path: "/modpacks/{id}/server-starts",
    tags,
    summary: "List a modpack's start reports",
    description:
      "What servers reported of their starts with this modpack (`POST /modpacks/{id}/server-starts`), newest first, paged: the revision and version each started with, its outcome, the mods it loaded and what its log showed.",
    operationId: "listServerStarts",
    success: "A page of start reports, newest first.",
    permission: "modpack.read",
    modpackAccess: "member",
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.list)
    .query(call("list")),
});
