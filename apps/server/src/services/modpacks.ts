import {
  accessDenied,
  type Caller,
  type Member,
  type MemberPermission,
  type Modpack,
  type ModpackAccess,
  type ModpackNeed,
  type ModpackSummary,
  notFound,
  type Services,
} from "@modpack/contract";
import { type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "../db/database.js";
import { reusableQuery } from "../db/reusable-query.js";
import type { Database, ModpackRow, ModpackUpdate } from "../db/schema.js";
import { createNotifications } from "./notifications.js";
import {
  afterPosition,
  checkPageDepth,
  countMatches,
  cursorKey,
  decodeCursor,
  EXACT_COUNT_LIMIT,
  encodeCursor,
  likePattern,
  offsetOf,
  pagination,
  rowsByIds,
  sortText,
} from "./paging.js";
import { modpackReadVersion, noteReadVersion } from "./read-versions.js";

export function toModpackSummary(row: ModpackRow): ModpackSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    avatarUrl: row.avatarUrl,
    platformUrl: row.platformUrl,
    owner: row.ownerId,
    isPublic: row.isPublic,
    isVerified: row.isVerified,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const membersQuery = reusableQuery(["00000000-0000-4000-8000-00000000000a"], (db, modpackId) =>
  db
    .selectFrom("modpackMembers")
    .innerJoin("users", "users.id", "modpackMembers.userId")
    .select([
      "modpackMembers.userId",
      "users.name",
      "users.image",
      "modpackMembers.permission",
      "modpackMembers.isActive",
      "modpackMembers.createdAt",
      "modpackMembers.updatedAt",
    ])
    .where("modpackMembers.modpackId", "=", modpackId)
    .where("modpackMembers.isActive", "=", true)
    .orderBy("modpackMembers.createdAt")
    .orderBy("modpackMembers.userId"),
);

/** The active members of a modpack with their names, oldest first. */
export async function loadMembers(db: Db, modpackId: string): Promise<Member[]> {
  const rows = await membersQuery(db, modpackId);
  return rows.map((row) => ({
    userId: row.userId,
    name: row.name,
    image: row.image ?? "",
    permission: row.permission.filter((value) => memberPermissionValues.has(value)) as MemberPermission[],
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

/**
 * The modpack row each access check loaded, by the access it answered: a read of the modpack that
 * was just checked needs only its members (the access object lives as long as its request).
 */
const checkedRows = new WeakMap<ModpackAccess, ModpackRow>();

/** A modpack with its members and metadata, as the single-modpack reads answer it. */
export async function loadModpack(db: Db, id: string): Promise<Modpack> {
  const [row, members] = await Promise.all([
    db.selectFrom("modpacks").selectAll().where("id", "=", id).executeTakeFirst(),
    loadMembers(db, id),
  ]);
  if (!row) throw notFound("Modpack not found");
  return { ...toModpackSummary(row), members, metadata: row.metadata ?? {} };
}

type ModpackQuery = SelectQueryBuilder<Database, "modpacks", object>;

interface ListOptions {
  page: number;
  cursor?: string | undefined;
  limit: number;
  search?: string | undefined;
  sortBy: "createdAt" | "updatedAt" | "name";
  sortOrder: "asc" | "desc";
}

/**
 * One page and the total. The total is counted exactly up to EXACT_COUNT_LIMIT and estimated above
 * (see countMatches); with no match the page is not read at all. A page of a small match set is
 * read from the matching ids (`in (…offset 0)` keeps Postgres from folding it back into a walk of
 * the sort index that would filter every row); a large one walks the sort index and stops after
 * `limit` + 1 rows (the extra row says whether there is a next page). `bounded: false` counts
 * exactly: the set is bounded by its caller (one user's modpacks), not by the catalogue.
 */
async function listPage(db: Db, base: ModpackQuery, options: ListOptions, bounded = true) {
  const { page, cursor, limit, sortBy, sortOrder } = options;
  checkPageDepth(page, limit, cursor);
  const sortKey = cursorKey(`modpacks.${sortBy}.${sortOrder}`, {
    list: bounded ? "public" : "mine",
    search: options.search,
    includeArchived: "includeArchived" in options ? options.includeArchived : undefined,
  });
  const position = cursor === undefined ? undefined : decodeCursor(cursor, sortKey);
  let query = base;
  if (options.search) {
    const pattern = likePattern(options.search);
    query = query.where((eb) =>
      eb.or([eb("modpacks.name", "ilike", pattern), eb("modpacks.description", "ilike", pattern)]),
    );
  }
  const { total, exact } = bounded
    ? await countMatches(db, query)
    : {
        total: Number(
          (await query.select((eb) => eb.fn.countAll<number>().as("count")).executeTakeFirstOrThrow()).count,
        ),
        exact: true,
      };
  if (total === 0) return { data: [], pagination: pagination(page, limit, 0, { totalExact: true, nextCursor: null }) };
  const column = `modpacks.${sortBy}` as const;
  let rowsQuery =
    exact && total <= EXACT_COUNT_LIMIT ? rowsByIds<ModpackQuery>(db, "modpacks", query.select("modpacks.id")) : query;
  if (position) {
    rowsQuery = rowsQuery.where(
      afterPosition(column, "modpacks.id", sortBy === "name" ? "text" : "timestamptz", sortOrder, position),
    );
  }
  const rows = await rowsQuery
    .selectAll("modpacks")
    .select(sortText(column).as("sortValue"))
    .orderBy(column, sortOrder)
    .orderBy("modpacks.id", sortOrder)
    .limit(limit + 1)
    .offset(position ? 0 : offsetOf(page, limit))
    .execute();
  const last = rows.length > limit ? rows[limit - 1] : undefined;
  return {
    data: rows.slice(0, limit).map(toModpackSummary),
    pagination: pagination(page, limit, total, {
      totalExact: exact,
      nextCursor: last ? encodeCursor(sortKey, { value: last.sortValue, id: last.id }) : null,
    }),
  };
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

const accessQuery = reusableQuery(
  ["00000000-0000-4000-8000-00000000000b", "00000000-0000-4000-8000-00000000000c"],
  (db, userId, id) =>
    db
      .selectFrom("modpacks")
      .leftJoin("modpackMembers", (join) =>
        join
          .onRef("modpackMembers.modpackId", "=", "modpacks.id")
          .on("modpackMembers.userId", "=", userId)
          .on("modpackMembers.isActive", "=", true),
      )
      .selectAll("modpacks")
      .select("modpackMembers.permission")
      .where("modpacks.id", "=", id),
);

/**
 * The resource rule on one modpack, from one indexed lookup (the modpack and the caller's active
 * membership): 404 when the caller may not know it exists, 403 when they may not do `need`. Notes
 * the modpack's read version for the read in progress (see read-versions.ts).
 */
export async function authorizeModpack(
  db: Db,
  caller: Caller | null,
  id: string,
  need: ModpackNeed,
): Promise<ModpackAccess & { version: string }> {
  const [row] = await accessQuery(db, caller?.userId ?? "00000000-0000-0000-0000-000000000000", id);
  if (!row) throw notFound("Modpack not found");
  const isOwner = caller !== null && row.ownerId === caller.userId;
  const memberPermissions = row.permission
    ? (row.permission.filter((value) => memberPermissionValues.has(value)) as MemberPermission[])
    : null;
  if (need === "public") {
    if (!row.isPublic || !row.isActive) throw notFound("Modpack not found");
  } else if (!row.isActive && !isOwner) {
    throw notFound("Modpack not found");
  } else if (need === "read") {
    if (!isOwner && memberPermissions === null && !row.isPublic) throw accessDenied();
  } else if (need === "owner") {
    if (!isOwner) throw accessDenied();
  } else if (!isOwner && !memberPermissions?.includes(need)) {
    throw accessDenied();
  }
  const version = modpackReadVersion(row.version);
  noteReadVersion(version);
  const access = {
    id: row.id,
    name: row.name,
    ownerId: row.ownerId,
    isPublic: row.isPublic,
    isActive: row.isActive,
    isOwner,
    memberPermissions,
    version,
  };
  const { permission: _permission, ...modpack } = row;
  checkedRows.set(access, modpack);
  return access;
}

const memberPermissionValues = new Set<string>(["read", "add-mod", "remove-mod", "import", "configure"]);

export function modpacksService(db: Db): Services["modpacks"] {
  return {
    authorize(caller, id, need) {
      return authorizeModpack(db, caller, id, need);
    },

    listPublic(input) {
      const base = db
        .selectFrom("modpacks")
        .where("modpacks.isPublic", "=", true)
        .where("modpacks.isActive", "=", true);
      return listPage(db, base, input);
    },

    listMine(caller, input) {
      // The caller's own modpacks and the ones shared with them, from the two indexes by user:
      // a set bounded by the user, counted exactly and sorted in memory.
      const owned = db
        .selectFrom("modpacks as own")
        .select("own.id")
        .where("own.ownerId", "=", caller.userId)
        .$if(!input.includeArchived, (query) => query.where("own.isActive", "=", true));
      const shared = db
        .selectFrom("modpackMembers as member")
        .innerJoin("modpacks as pack", "pack.id", "member.modpackId")
        .select("pack.id")
        .where("member.userId", "=", caller.userId)
        .where("member.isActive", "=", true)
        .where("pack.isActive", "=", true);
      return listPage(db, rowsByIds<ModpackQuery>(db, "modpacks", owned.union(shared)), input, false);
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
      return { ...toModpackSummary(row), members: [], metadata: row.metadata ?? {} };
    },

    async get(modpack) {
      const row = checkedRows.get(modpack);
      if (!row) return loadModpack(db, modpack.id);
      return { ...toModpackSummary(row), members: await loadMembers(db, modpack.id), metadata: row.metadata ?? {} };
    },

    async update(modpack, input) {
      const changes: ModpackUpdate = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.avatarUrl !== undefined) changes.avatarUrl = input.avatarUrl;
      if (input.isPublic !== undefined) changes.isPublic = input.isPublic;
      if (input.platformWorkshopUrl !== undefined) changes.platformUrl = input.platformWorkshopUrl;
      if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
      if (Object.keys(changes).length > 0) {
        await db
          .updateTable("modpacks")
          .set({ ...changes, updatedAt: sql<Date>`now()` })
          .where("id", "=", modpack.id)
          .execute();
      }
      return loadModpack(db, modpack.id);
    },

    async archive(modpack) {
      if (modpack.isActive) {
        await db
          .updateTable("modpacks")
          .set({ isActive: false, updatedAt: sql<Date>`now()` })
          .where("id", "=", modpack.id)
          .execute();
      }
      return { message: "Modpack archived" };
    },

    async restore(modpack) {
      if (!modpack.isActive) {
        await db
          .updateTable("modpacks")
          .set({ isActive: true, updatedAt: sql<Date>`now()` })
          .where("id", "=", modpack.id)
          .execute();
      }
      return loadModpack(db, modpack.id);
    },

    async duplicate(caller, modpack, input) {
      const id = await db.transaction().execute(async (trx) => {
        const original = await trx
          .selectFrom("modpacks")
          .selectAll()
          .where("id", "=", modpack.id)
          .executeTakeFirstOrThrow();
        const copy = await trx
          .insertInto("modpacks")
          .values({
            name: input.name ?? copyName(original.name),
            description: original.description,
            avatarUrl: original.avatarUrl,
            isPublic: false,
            platformUrl: original.platformUrl,
            ownerId: caller.userId,
            metadata: JSON.stringify(original.metadata ?? {}),
          })
          .returning(["id", "name"])
          .executeTakeFirstOrThrow();
        const links = await trx
          .insertInto("modpackMods")
          .columns(["modpackId", "modId", "addedBy", "addedAt"])
          .expression((eb) =>
            eb
              .selectFrom("modpackMods")
              .select([
                sql<string>`${copy.id}::uuid`.as("modpackId"),
                "modpackMods.modId",
                sql<string>`${caller.userId}::uuid`.as("addedBy"),
                // The source's times, so the default load order (the order mods were added) is the same.
                "modpackMods.addedAt",
              ])
              .where("modpackMods.modpackId", "=", modpack.id)
              .where("modpackMods.isActive", "=", true),
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
        await createNotifications(trx, [
          {
            userId: caller.userId,
            title: "Modpack duplicated",
            content: `${copy.name} is a copy of ${original.name} with ${links.length} mod${links.length === 1 ? "" : "s"}.`,
            type: "success",
            metadata: { modpackId: copy.id, sourceModpackId: original.id, modCount: links.length },
          },
        ]);
        return copy.id;
      });
      return loadModpack(db, id);
    },
  };
}
