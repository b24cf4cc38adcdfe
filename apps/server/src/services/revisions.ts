import { type ModpackAccess, notFound, type Revision, type Services } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { type SavedExportConfiguration, saveExportConfiguration } from "../db/export-configurations.js";
import { linkMods } from "../db/modpack-mods.js";
import { recordRevision, stateAt, statesAt } from "../db/modpack-revisions.js";
import { changeModpack } from "../db/modpacks.js";
import { listPage } from "../db/paging.js";
import { announceModpackChanged } from "../db/webhooks.js";
import { compareStates, type RevisionMod } from "../modpack/revision-state.js";
import type { JobQueue } from "./ports.js";

export interface RevisionsDependencies {
  db: Db;
  /** Queues the `modpack.changed` event of a restore. */
  jobs: Pick<JobQueue, "send">;
  changedWindowSeconds: number;
}

const author = (id: string | null, name: string | null) => (id && name !== null ? { id, name } : null);

/** 404 unless the pack has revision `number` (0, the empty pack, where `zero` allows it). */
function checkNumber(modpack: ModpackAccess, number: number, zero = false): void {
  if ((number === 0 && !zero) || number > modpack.modpack.revision) throw notFound("Revision not found");
}

const toRevisionMod = (mod: RevisionMod) => ({
  id: mod.id,
  workshopId: mod.workshopId,
  name: mod.name,
  platformModIds: { "41x": mod.idsB41, "42x": mod.idsB42 },
  mapFolders: mod.mapFolders,
});

/** One revision with its mods; 404 when the pack has none of that number. */
async function loadRevision(db: Db, modpackId: string, number: number): Promise<Revision> {
  const [row, mods] = await Promise.all([
    db
      .selectFrom("modpackRevisions as revision")
      .leftJoin("users", "users.id", "revision.authorId")
      .select(["revision.number", "revision.createdAt", "revision.reason", "revision.authorId", "users.name"])
      .where("revision.modpackId", "=", modpackId)
      .where("revision.number", "=", number)
      .executeTakeFirst(),
    stateAt(db, modpackId, number),
  ]);
  if (!row) throw notFound("Revision not found");
  return {
    number: row.number,
    createdAt: row.createdAt.toISOString(),
    author: author(row.authorId, row.name),
    reason: row.reason,
    mods: mods.map(toRevisionMod),
  };
}

/**
 * A modpack's history. The `ModpackAccess` each method gets has passed the procedure's resource
 * rule (read, restore), so nothing here checks access again.
 */
export function revisionsService(deps: RevisionsDependencies): Services["revisions"] {
  const { db } = deps;
  const announce = announceModpackChanged({ jobs: deps.jobs, windowSeconds: deps.changedWindowSeconds });
  return {
    list(modpack, input) {
      return listPage(db, input, {
        list: "revisions",
        filters: { modpackId: modpack.id },
        rows: db.selectFrom("modpackRevisions as revision").where("revision.modpackId", "=", modpack.id),
        // Numbers are given in the order of the rows' times (migration 0016): newest first is by time.
        sort: { column: "revision.createdAt", type: "timestamptz", order: "desc", id: "revision.id" },
        count: "exact",
        columns: (rows) =>
          rows
            .leftJoin("users", "users.id", "revision.authorId")
            .select([
              "revision.number",
              "revision.createdAt",
              "revision.reason",
              "revision.authorId",
              "users.name",
              "revision.added",
              "revision.removed",
              "revision.moved",
              "revision.selectionChanged",
            ]),
        toItem: (row) => ({
          number: row.number,
          createdAt: row.createdAt.toISOString(),
          author: author(row.authorId, row.name),
          reason: row.reason,
          counts: { added: row.added, removed: row.removed, moved: row.moved, selectionChanged: row.selectionChanged },
        }),
      });
    },

    async get(modpack, input) {
      const number = Number(input.number);
      checkNumber(modpack, number);
      return loadRevision(db, modpack.id, number);
    },

    async compare(modpack, input) {
      const from = Number(input.from);
      const to = input.to === undefined ? undefined : Number(input.to);
      const current = modpack.modpack.revision;
      checkNumber(modpack, from, true);
      if (to !== undefined) checkNumber(modpack, to, true);
      const target = to ?? current;
      const [before, after] = await statesAt(db, modpack.id, from, target);
      const fromById = new Map(before.map((mod) => [mod.id, mod]));
      const both = after.filter((mod) => fromById.has(mod.id));
      // With `to` left out, a mod's workshop date is the catalogue's now, not the revision's.
      const catalogue =
        to === undefined && both.length > 0
          ? new Map(
              (
                await db
                  .selectFrom("mods")
                  .select(["id", "timeUpdated"])
                  .where("id", "=", sql<string>`any(${both.map((mod) => mod.id)}::uuid[])`)
                  .execute()
              ).map((row) => [row.id, row.timeUpdated]),
            )
          : undefined;
      const workshopUpdates = both.flatMap((mod) => {
        const then = fromById.get(mod.id)!.timeUpdated;
        const now = catalogue ? (catalogue.get(mod.id) ?? null) : mod.timeUpdated;
        return now && (!then || now > then) ? [{ id: mod.id, workshopId: mod.workshopId, name: mod.name, now }] : [];
      });
      workshopUpdates.sort((a, b) => b.now.getTime() - a.now.getTime());
      return {
        from,
        to: target,
        ...compareStates(before, after),
        workshopUpdates: workshopUpdates.map(({ now, ...mod }) => ({ ...mod, timeUpdated: now.toISOString() })),
      };
    },

    async restore(caller, modpack, input) {
      const number = Number(input.number);
      checkNumber(modpack, number);
      const restored = await db.transaction().execute(async (trx) => {
        // The pack's row is locked where every writer locks it: by the links' and the configuration's
        // triggers, then by the revision it records. Locking it first here would take the locks in the
        // opposite order to the other writers'.
        const state = await stateAt(trx, modpack.id, number);
        // A mod the catalogue no longer has cannot be linked again.
        const known =
          state.length === 0
            ? []
            : await trx
                .selectFrom("mods")
                .select(["id", "workshopId", "platformModIds"])
                .where("id", "=", sql<string>`any(${state.map((mod) => mod.id)}::uuid[])`)
                .execute();
        const catalogue = new Map(known.map((row) => [row.id, row]));
        const mods = state.filter((mod) => catalogue.has(mod.id));
        const keep = mods.map((mod) => mod.id);
        await trx
          .updateTable("modpackMods")
          .set({ isActive: false, updatedAt: sql<Date>`now()` })
          .where("modpackId", "=", modpack.id)
          .where("isActive", "=", true)
          .$if(keep.length > 0, (query) => query.where("modId", "!=", sql<string>`all(${keep}::uuid[])`))
          .execute();
        await linkMods(
          trx,
          modpack.id,
          mods.map((mod) => catalogue.get(mod.id)!),
          caller.userId,
        );
        const modConfig: SavedExportConfiguration["modConfig"] = {};
        for (const mod of mods) {
          if (mod.selected === null && mod.custom.length === 0) continue;
          modConfig[mod.id] = {
            selectedPlatformModIds: mod.selected ?? catalogue.get(mod.id)!.platformModIds,
            ...(mod.custom.length > 0 ? { customPlatformModIds: mod.custom } : {}),
          };
        }
        await saveExportConfiguration(trx, modpack.id, { modsOrder: keep, modConfig }, caller.userId);
        const recorded = await recordRevision(trx, modpack.id, {
          reason: "restore",
          authorId: caller.userId,
          announce,
        });
        if (recorded !== null) {
          await changeModpack(trx, modpack.id);
          return recorded;
        }
        const pack = await trx
          .selectFrom("modpacks")
          .select("revision")
          .where("id", "=", modpack.id)
          .executeTakeFirstOrThrow();
        return pack.revision;
      });
      return loadRevision(db, modpack.id, restored);
    },
  };
}
