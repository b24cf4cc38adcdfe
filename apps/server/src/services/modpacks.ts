import { type MyModpackListInput, notFound, type Services } from "@modpack/contract";
import { type CompiledQuery, type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "../db/database.js";
import { modsInLockOrder } from "../db/lock-order.js";
import { recordRevision } from "../db/modpack-revisions.js";
import {
  authorizeModpack,
  changeModpack,
  loadMembers,
  loadModpack,
  publicModpacksPage,
  publicSearchPage,
  readableBy,
  toModpack,
  toModpackSummary,
} from "../db/modpacks.js";
import { notify } from "../db/notifications.js";
import { type FixedPageAt, listPage, rowsByIds } from "../db/paging.js";
import type { Database, ModpackUpdate } from "../db/schema.js";
import { searchTextCondition } from "../db/search-text.js";

/** The columns a modpack summary answers: a list reads no more of each row (not its search text). */
const summaryColumns = [
  "modpacks.id",
  "modpacks.name",
  "modpacks.description",
  "modpacks.avatarUrl",
  "modpacks.platformUrl",
  "modpacks.ownerId",
  "modpacks.isPublic",
  "modpacks.isVerified",
  "modpacks.isActive",
  "modpacks.createdAt",
  "modpacks.updatedAt",
] as const;

/** A page of modpacks in the request's sort; every word of `search` is in the name or the description. */
function listModpacks(
  db: Db,
  list: string,
  matching: SelectQueryBuilder<Database, "modpacks", object>,
  input: Omit<MyModpackListInput, "includeArchived"> & { includeArchived?: boolean | undefined },
  count: "bounded" | "withPage",
  fixedPage?: (at: FixedPageAt) => CompiledQuery,
) {
  const { search, sortBy, sortOrder } = input;
  type Modpacks = typeof matching;
  const filter = (rows: Modpacks) => rows.where(searchTextCondition("modpacks.searchText", search ?? ""));
  return listPage(db, input, {
    list,
    filters: { search, includeArchived: input.includeArchived },
    rows: search ? filter(matching) : matching,
    sort: {
      column: `modpacks.${sortBy}`,
      type: sortBy === "name" ? "text" : "timestamptz",
      order: sortOrder,
      id: "modpacks.id",
    },
    count: count === "bounded" && search ? "matched" : count,
    // The public list grows with the catalogue: a search's page walks the sort index a bounded
    // distance, else sorts every match from the trigram index, and counts only what it read. One
    // user's modpacks are one small set already, counted in the page's statement.
    ...(count === "bounded" && search && { sortWalk: { table: "modpacks" as const, from: matching, filter } }),
    ...(fixedPage && { fixedPage }),
    columns: (rows) => rows.select(summaryColumns),
    toItem: toModpackSummary,
  });
}

/** The longest modpack name the contract accepts. */
const NAME_MAX = 50;
const COPY_SUFFIX = " (copy)";

/**
 * The default name of a copy: the original's, shortened so that ` (copy)` still fits the name's
 * length rule (counted in UTF-16 units, as the contract counts), never splitting a character.
 */
export function copyName(original: string): string {
  const room = NAME_MAX - COPY_SUFFIX.length;
  let base = "";
  for (const char of original) {
    if (base.length + char.length > room) break;
    base += char;
  }
  return `${base.length < original.length ? base.trimEnd() : base}${COPY_SUFFIX}`;
}

export function modpacksService(db: Db): Services["modpacks"] {
  // The modpacks anyone may read (the partial indexes on public, active modpacks): the same for
  // every request, and query builders never change, so it is built once.
  const publicModpacks = db.selectFrom("modpacks").where(readableBy(null));
  return {
    authorize(caller, id, need, options) {
      return authorizeModpack(db, caller, id, need, options);
    },

    listPublic(input) {
      // The list every visitor reads, and its search: each page is one fixed statement (see
      // `publicModpacksPage` and `publicSearchPage`).
      const { search, sortBy, sortOrder } = input;
      const fixedPage = search
        ? (at: FixedPageAt) => publicSearchPage(sortBy, sortOrder, search, at)
        : (at: FixedPageAt) => publicModpacksPage(sortBy, sortOrder, at);
      return listModpacks(db, "modpacks.public", publicModpacks, input, "bounded", fixedPage);
    },

    async listWithMod(input) {
      // The mod's active links (their index on the mod id) name the modpacks; a popular mod is in a
      // set that grows with the catalogue, so it is counted like the public list.
      const including = publicModpacks.where((eb) =>
        eb.exists(
          eb
            .selectFrom("modpackMods")
            .select(sql.lit(1).as("one"))
            .whereRef("modpackMods.modpackId", "=", "modpacks.id")
            .where("modpackMods.modId", "=", input.id)
            .where("modpackMods.isActive", "=", true),
        ),
      );
      // The mod's id names the list in its cursors: a cursor of another mod's list answers 400.
      const page = await listModpacks(db, `modpacks.withMod.${input.id}`, including, input, "bounded");
      // Tell a mod no public modpack includes from one the catalogue does not have.
      if (page.pagination.total === 0) {
        const mod = await db.selectFrom("mods").select("id").where("id", "=", input.id).executeTakeFirst();
        if (!mod) throw notFound("Mod not found");
      }
      return page;
    },

    listMine(caller, input) {
      // The caller's own modpacks (the owner index: their rows in a bitmap scan) and the ones shared
      // with them and owned by someone else (the members index, each row by primary key): a set
      // bounded by the user, sorted in memory, as far as they may read them. The set is read once:
      // the page and its exact count (a window over it) come from one statement. The owned rows are
      // not read by primary key one by one: for a user with thousands of modpacks that is one index
      // probe per modpack, where the bitmap scan reads the owner's rows page by page.
      const userId = caller.userId;
      type Modpacks = SelectQueryBuilder<Database, "modpacks", object>;
      const owned = db.selectFrom("modpacks").selectAll("modpacks").where("modpacks.ownerId", "=", userId);
      const shared = rowsByIds<Modpacks>(
        db,
        "modpacks",
        db
          .selectFrom("modpackMembers")
          .select("modpackMembers.modpackId as id")
          .where("modpackMembers.userId", "=", userId)
          .where("modpackMembers.isActive", "=", true),
      )
        .selectAll("modpacks")
        .where("modpacks.ownerId", "<>", userId);
      // The union has exactly the table's columns, under the table's name.
      let mine = (db.selectFrom(owned.unionAll(shared).as("modpacks")) as unknown as Modpacks).where(
        readableBy(caller, { includeArchived: input.includeArchived }),
      );
      // A token limited to modpacks lists only those.
      if (caller.modpackIds) mine = mine.where("modpacks.id", "in", caller.modpackIds);
      return listModpacks(db, "modpacks.mine", mine, input, "withPage");
    },

    async create(caller, input) {
      const row = await db
        .insertInto("modpacks")
        .values({
          name: input.name,
          description: input.description ?? null,
          avatarUrl: input.avatarUrl ?? null,
          isPublic: input.isPublic,
          platformUrl: input.platformWorkshopUrl ?? null,
          ownerId: caller.userId,
          metadata: "{}",
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...toModpack(row), members: [] };
    },

    async get(access) {
      return { ...access.modpack, members: access.members ?? (await loadMembers(db, access.id)) };
    },

    async update(modpack, input) {
      const changes: ModpackUpdate = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.avatarUrl !== undefined) changes.avatarUrl = input.avatarUrl;
      if (input.isPublic !== undefined) changes.isPublic = input.isPublic;
      if (input.platformWorkshopUrl !== undefined) changes.platformUrl = input.platformWorkshopUrl;
      if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
      if (Object.keys(changes).length > 0) await changeModpack(db, modpack.id, changes);
      return loadModpack(db, modpack.id);
    },

    async archive(modpack) {
      if (modpack.isActive) await changeModpack(db, modpack.id, { isActive: false });
      return { message: "Modpack archived" };
    },

    async restore(modpack) {
      if (!modpack.isActive) await changeModpack(db, modpack.id, { isActive: true });
      return loadModpack(db, modpack.id);
    },

    async duplicate(caller, modpack, input) {
      // The original as the access check read it.
      const original = modpack.modpack;
      const id = await db.transaction().execute(async (trx) => {
        const copy = await trx
          .insertInto("modpacks")
          .values({
            name: input.name ?? copyName(original.name),
            description: original.description,
            avatarUrl: original.avatarUrl,
            isPublic: false,
            platformUrl: original.platformUrl,
            ownerId: caller.userId,
            metadata: JSON.stringify(original.metadata),
          })
          .returning(["id", "name"])
          .executeTakeFirstOrThrow();
        const links = await trx
          .insertInto("modpackMods")
          .columns(["modpackId", "modId", "addedBy", "addedAt"])
          .expression((eb) =>
            eb
              .selectFrom("modpackMods")
              .innerJoin("mods", "mods.id", "modpackMods.modId")
              .select([
                sql<string>`${copy.id}::uuid`.as("modpackId"),
                "modpackMods.modId",
                sql<string>`${caller.userId}::uuid`.as("addedBy"),
                // The source's times, so the default load order (the order mods were added) is the same.
                "modpackMods.addedAt",
              ])
              .where("modpackMods.modpackId", "=", modpack.id)
              .where("modpackMods.isActive", "=", true)
              // Each new link reads its mod `for share`: in the catalogue's lock order (see inLockOrder).
              .orderBy(modsInLockOrder),
          )
          .returning("modId")
          .execute();
        await trx
          .insertInto("exportConfigurations")
          .columns(["modpackId", "modsOrder", "modConfig", "updatedBy"])
          .expression((eb) =>
            eb
              .selectFrom("exportConfigurations")
              .select([
                sql<string>`${copy.id}::uuid`.as("modpackId"),
                "exportConfigurations.modsOrder",
                "exportConfigurations.modConfig",
                sql<string>`${caller.userId}::uuid`.as("updatedBy"),
              ])
              .where("exportConfigurations.modpackId", "=", modpack.id),
          )
          .execute();
        // A copy with mods starts its own history at revision 1.
        await recordRevision(trx, copy.id, { reason: "duplicate", authorId: caller.userId });
        await notify(trx, {
          userId: caller.userId,
          title: "Modpack duplicated",
          content: `${copy.name} is a copy of ${original.name} with ${links.length} mod${links.length === 1 ? "" : "s"}.`,
          type: "success",
          metadata: { modpackId: copy.id, sourceModpackId: original.id, modCount: links.length },
        });
        return copy.id;
      });
      return loadModpack(db, id);
    },
  };
}
