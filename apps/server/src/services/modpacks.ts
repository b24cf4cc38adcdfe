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
import type { Database, ModpackRow, ModpackUpdate } from "../db/schema.js";
import { likePattern, offsetOf, pagination } from "./paging.js";

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

/** The active members of a modpack with their names, oldest first. */
export async function loadMembers(db: Db, modpackId: string): Promise<Member[]> {
  const rows = await db
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
    .orderBy("modpackMembers.userId")
    .execute();
  return rows.map((row) => ({
    userId: row.userId,
    name: row.name,
    image: row.image ?? "",
    permission: row.permission,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

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
  limit: number;
  search?: string | undefined;
  sortBy: "createdAt" | "updatedAt" | "name";
  sortOrder: "asc" | "desc";
}

/**
 * One page and the total, in one query. The total is a scalar subquery, not `count(*) over ()`:
 * a window count makes Postgres read every matching row (all columns) before the LIMIT and hides
 * the LIMIT from the planner; the subquery counts from an index and the page stops after `limit`.
 */
async function listPage(base: ModpackQuery, options: ListOptions) {
  let query = base;
  if (options.search) {
    const pattern = likePattern(options.search);
    query = query.where((eb) =>
      eb.or([eb("modpacks.name", "ilike", pattern), eb("modpacks.description", "ilike", pattern)]),
    );
  }
  const counted = query.select((eb) => eb.fn.countAll<number>().as("count"));
  const rows = await query
    .selectAll("modpacks")
    .select(counted.as("fullCount"))
    .orderBy(`modpacks.${options.sortBy}`, options.sortOrder)
    .orderBy("modpacks.id", options.sortOrder)
    .limit(options.limit)
    .offset(offsetOf(options.page, options.limit))
    .execute();
  let total = rows[0] ? Number(rows[0].fullCount) : 0;
  if (rows.length === 0 && options.page > 1) {
    total = Number((await counted.executeTakeFirstOrThrow()).count);
  }
  return { data: rows.map(toModpackSummary), pagination: pagination(options.page, options.limit, total) };
}

const memberPermissionValues = new Set<string>(["read", "add-mod", "remove-mod", "import", "configure"]);

export function modpacksService(db: Db): Services["modpacks"] {
  return {
    async authorize(caller: Caller | null, id: string, need: ModpackNeed): Promise<ModpackAccess> {
      const row = await db
        .selectFrom("modpacks")
        .leftJoin("modpackMembers", (join) =>
          join
            .onRef("modpackMembers.modpackId", "=", "modpacks.id")
            .on("modpackMembers.userId", "=", caller?.userId ?? "00000000-0000-0000-0000-000000000000")
            .on("modpackMembers.isActive", "=", true),
        )
        .select([
          "modpacks.id",
          "modpacks.name",
          "modpacks.ownerId",
          "modpacks.isPublic",
          "modpacks.isActive",
          "modpackMembers.permission",
        ])
        .where("modpacks.id", "=", id)
        .executeTakeFirst();
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
      return {
        id: row.id,
        name: row.name,
        ownerId: row.ownerId,
        isPublic: row.isPublic,
        isActive: row.isActive,
        isOwner,
        memberPermissions,
      };
    },

    listPublic(input) {
      const base = db
        .selectFrom("modpacks")
        .where("modpacks.isPublic", "=", true)
        .where("modpacks.isActive", "=", true);
      return listPage(base, input);
    },

    listMine(caller, input) {
      const base = db
        .selectFrom("modpacks")
        .where((eb) =>
          eb.or([
            eb.and([
              eb("modpacks.ownerId", "=", caller.userId),
              ...(input.includeArchived ? [] : [eb("modpacks.isActive", "=", true)]),
            ]),
            eb.and([
              eb("modpacks.isActive", "=", true),
              eb.exists(
                eb
                  .selectFrom("modpackMembers")
                  .select(sql`1`.as("one"))
                  .whereRef("modpackMembers.modpackId", "=", "modpacks.id")
                  .where("modpackMembers.userId", "=", caller.userId)
                  .where("modpackMembers.isActive", "=", true),
              ),
            ]),
          ]),
        );
      return listPage(base, input);
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

    get(modpack) {
      return loadModpack(db, modpack.id);
    },

    async update(_caller, modpack, input) {
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

    async archive(_caller, modpack) {
      if (modpack.isActive) {
        await db
          .updateTable("modpacks")
          .set({ isActive: false, updatedAt: sql<Date>`now()` })
          .where("id", "=", modpack.id)
          .execute();
      }
      return { message: "Modpack archived" };
    },

    async restore(_caller, modpack) {
      if (!modpack.isActive) {
        await db
          .updateTable("modpacks")
          .set({ isActive: true, updatedAt: sql<Date>`now()` })
          .where("id", "=", modpack.id)
          .execute();
      }
      return loadModpack(db, modpack.id);
    },
  };
}
