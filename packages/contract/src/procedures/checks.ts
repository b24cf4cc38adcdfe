import { resource } from "../ports.js";
import { modpackCheckInput, modpackCheckSchema } from "../schemas/check.js";
import { operation, router } from "../trpc.js";

const tags = ["Modpack check"];

export const checkPorts = resource("checks", {
  /** Whether the modpack will load on the given game version, and a load order that satisfies requirements. */
  check: { modpack: true, input: modpackCheckInput, output: modpackCheckSchema },
});
const { schemas, call } = checkPorts;

export const checksRouter = router({
  get: operation({
    method: "GET",
    path: "/modpacks/{id}/check",
    tags,
    summary: "Will this modpack load?",
    description:
      "Checks the modpack's active mods and export configuration for one game version (`41x` or `42x`, default `42x`): missing requirements, requirements loading too late, requirement cycles, in-game ids selected in two mods, mods without a usable in-game id, items no longer available on the workshop (as the last refresh saw them), mods tagged for other builds, and mods left out because every id is deselected. `ok` is true when no finding is an `error`. `suggestedOrder` is a load order where requirements load first and everything else keeps its saved place; apply it with `PUT /modpacks/{id}/export-configuration`. Each server process computes a few checks at once and queues the rest in arrival order; when too many are already queued, the call answers 503 with `Retry-After` instead of waiting. The `ETag` moves with everything the check reads (the modpack's mods and their catalogue rows, its export configuration, the catalogue's titles of the requirements it lacks, its start reports), so `If-None-Match` with it answers 304 from the modpack's row alone, without checking again.",
    operationId: "checkModpack",
    success: "The findings for the version, whether the pack is ok, and a suggested load order.",
    permission: "modpack.read",
    modpackAccess: "read",
    cache: { scope: "private", validator: "modpack" },
  })
    .concat(schemas.check)
    .query(call("check")),
});
