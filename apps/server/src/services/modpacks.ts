import {
  accessDenied,
  type Caller,
  type Member,
  type MemberPermission,
  type Modpack,
  type ModpackAccess,
  type ModpackNeed,
  type ModpackSummary,
  type MyModpackListInput,
  memberPermissions,
  notFound,
  type Services,
  unauthorized,
} from "@modpack/contract";
import { type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Database, ModpackRow, ModpackUpdate } from "../db/schema.js";
import { modsInLockOrder } from "./lock-order.js";
import { notify } from "./notifications.js";
import { listPage, rowsByIds, searchTextCondition } from "./paging.js";
import { recordRevision } from "./revision-records.js";

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

type SummaryRow = Pick<
  ModpackRow,
  | "id"
  | "name"
  | "description"
  | "avatarUrl"
  | "platformUrl"
  | "ownerId"
  | "isPublic"
  | "isVerified"
  | "isActive"
  | "createdAt"
  | "updatedAt"
>;

export function toModpackSummary(row: SummaryRow): ModpackSummary {
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

const memberPermissionValues = new Set<string>(memberPermissions);

/** A modpack row as the single-modpack reads answer it, without its members. */
function toModpack(
  row: SummaryRow & Pick<ModpackRow, "metadata" | "revision" | "lastGoodB41" | "lastGoodB42">,
): Omit<Modpack, "members"> {
  return {
    ...toModpackSummary(row),
    metadata: row.metadata ?? {},
    revision: row.revision,
    lastGoodRevision: { "41x": row.lastGoodB41, "42x": row.lastGoodB42 },
  };
}

/** A member as the modpack's member rows and its owner's user row hold it. */
interface MemberRow {
  userId: string;
  name: string;
  image: string | null;
  permission: string[];
  isActive: boolean;
  createdAt: Date | string;
  updatedAt: Date | string;
}

function toMember(row: MemberRow): Member {
  return {
    ...row,
    image: row.image ?? "",
    permission: row.permission.filter((value) => memberPermissionValues.has(value)) as MemberPermission[],
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
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
  return rows.map(toMember);
}

/**
 * The active members of the modpack a statement reads, oldest first, as one JSON array: a read of a
 * modpack with its members is one statement.
 */
const membersJson = sql<MemberRow[]>`(select coalesce(json_agg(json_build_object(
    'userId', m.user_id, 'name', u.name, 'image', u.image, 'permission', m.permission,
    'isActive', m.is_active, 'createdAt', m.created_at, 'updatedAt', m.updated_at
  ) order by m.created_at, m.user_id), '[]')
  from modpack_members m join users u on u.id = m.user_id
  where m.modpack_id = modpacks.id and m.is_active)`;

/** A modpack with its members and metadata, as the single-modpack reads answer it. */
export async function loadModpack(db: Db, id: string): Promise<Modpack> {
  const [row, members] = await Promise.all([
    db.selectFrom("modpacks").selectAll().where("id", "=", id).executeTakeFirst(),
    loadMembers(db, id),
  ]);
  if (!row) throw notFound("Modpack not found");
  return { ...toModpack(row), members };
}

/** Writes changes (none: only the time) to a modpack's row and moves its `updatedAt` to now. */
export async function changeModpack(db: Db, id: string, changes: ModpackUpdate = {}): Promise<void> {
  await db
    .updateTable("modpacks")
    .set({ ...changes, updatedAt: sql<Date>`now()` })
    .where("id", "=", id)
    .execute();
}

/**
 * Who may read a modpack: the one rule every read follows, as a condition on a `modpacks` row.
 * While it is active: everyone when it is public, otherwise its owner and its active members. An
 * archived modpack: its owner alone, and only where archived modpacks are asked for
 * (`includeArchived`: reading one by id, so it can be restored; the caller's own list on request);
 * anywhere else it is left out. With no caller: the active public modpacks. `authorize` turns a
 * refusal into 404 when the modpack is archived, 403 when it is active.
 */
export function readableBy(
  caller: Pick<Caller, "userId" | "modpackIds"> | null,
  options: { includeArchived?: boolean | undefined } = {},
) {
  return (eb: ExpressionBuilder<Database, "modpacks">) => {
    const isActive = eb("modpacks.isActive", "=", true);
    const isPublic = eb("modpacks.isPublic", "=", true);
    if (!caller) return eb.and([isActive, isPublic]);
    const isOwner = eb("modpacks.ownerId", "=", caller.userId);
    const isMember = eb.exists(
      eb
        .selectFrom("modpackMembers")
        .select(sql.lit(1).as("one"))
        .whereRef("modpackMembers.modpackId", "=", "modpacks.id")
        .where("modpackMembers.userId", "=", caller.userId)
        .where("modpackMembers.isActive", "=", true),
    );
    const rule = options.includeArchived
      ? eb.or([isOwner, eb.and([isActive, eb.or([isPublic, isMember])])])
      : eb.and([isActive, eb.or([isPublic, isOwner, isMember])]);
    if (!caller.modpackIds) return rule;
    // A token limited to modpacks reads those as its user would, and any other as a stranger.
    return eb.or([eb.and([isActive, isPublic]), eb.and([eb("modpacks.id", "in", caller.modpackIds), rule])]);
  };
}

/** The number of public, active modpacks as of the last analyse; null when the index is gone. */
const publicModpackCount = sql<
  number | null
>`(select reltuples from pg_class where oid = to_regclass('modpacks_public_created_idx'))`;

/** A page of modpacks in the request's sort; every word of `search` is in the name or the description. */
function listModpacks(
  db: Db,
  list: string,
  matching: SelectQueryBuilder<Database, "modpacks", object>,
  input: Omit<MyModpackListInput, "includeArchived"> & { includeArchived?: boolean | undefined },
  count: "bounded" | "withPage",
  estimate?: RawBuilder<number | null>,
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
    count,
    ...(count === "bounded" && !search && estimate && { estimate }),
    // The public list grows with the catalogue: a search's matches are read from the trigram index,
    // sorted and counted in one statement while they are few, and a larger set walks the sort index
    // a bounded distance, else sorts its matches. One user's modpacks are one small set already.
    ...(count === "bounded" &&
      search && { smallSet: true, sortWalk: { table: "modpacks" as const, from: matching, filter } }),
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

/** The user id no caller has: an anonymous access check runs the same query with it. */
const NO_USER = "00000000-0000-0000-0000-000000000000";

/**
 * The resource rule on one modpack, from one indexed lookup (the modpack and the caller's active
 * membership): 404 when the caller may not know it exists, 403 when they may not do `need`. Reads
 * follow `readableBy`; changes need the owner or a member holding the permission, and an archived
 * modpack only its owner. The access carries the row it read, and its version (`p<version>`): a read
 * of the modpack's answer is never older than that version.
 */
/** A restore changes links, order and selection: a member needs all three permissions. */
const RESTORE_NEEDS = ["add-mod", "remove-mod", "configure"] as const;

export async function authorizeModpack(
  db: Db,
  caller: Pick<Caller, "userId" | "modpackIds"> | null,
  id: string,
  need: ModpackNeed,
  options: { members?: boolean } = {},
): Promise<ModpackAccess> {
  // A token limited to other modpacks meets this one as a stranger would.
  const userId = caller && (!caller.modpackIds || caller.modpackIds.includes(id)) ? caller.userId : NO_USER;
  // The modpack, the caller's active membership, and the read rule for the caller and for anyone.
  const row = await db
    .selectFrom("modpacks")
    .leftJoin("modpackMembers", (join) =>
      join
        .onRef("modpackMembers.modpackId", "=", "modpacks.id")
        .on("modpackMembers.userId", "=", userId)
        .on("modpackMembers.isActive", "=", true),
    )
    .selectAll("modpacks")
    .select("modpackMembers.permission")
    .select((eb) => readableBy({ userId }, { includeArchived: true })(eb).as("readable"))
    .select((eb) => readableBy(null)(eb).as("readableByAnyone"))
    .$if(options.members === true, (query) => query.select(membersJson.as("members")))
    .where("modpacks.id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("Modpack not found");
  const isOwner = row.ownerId === userId;
  if (need === "public") {
    // `public` asks whether anyone may read it.
    if (!row.readableByAnyone) throw notFound("Modpack not found");
  } else if (need === "read") {
    // Rule 1 before rule 4: a private pack asks an anonymous caller to sign in first.
    if (!row.readable) throw !row.isActive ? notFound("Modpack not found") : caller ? accessDenied() : unauthorized();
  } else if (!row.isActive && !isOwner) {
    // Changing a modpack: an archived one only by its owner (who may restore it).
    throw notFound("Modpack not found");
  } else if (need === "owner") {
    if (!isOwner) throw accessDenied();
  } else if (need === "member") {
    if (!isOwner && !row.permission) throw accessDenied();
  } else if (need === "restore") {
    const held = row.permission ?? [];
    if (!isOwner && !RESTORE_NEEDS.every((permission) => held.includes(permission))) throw accessDenied();
  } else if (!isOwner && !row.permission?.includes(need)) {
    throw accessDenied();
  }
  return {
    id: row.id,
    name: row.name,
    ownerId: row.ownerId,
    isActive: row.isActive,
    version: `p${row.version}`,
    modpack: toModpack(row),
    ...(row.members ? { members: row.members.map(toMember) } : {}),
  };
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
      // The public modpacks are exactly the rows of the partial indexes on them (migration 0001), whose
      // row count Postgres's statistics keep: the unfiltered list's total above the exact-count limit.
      return listModpacks(db, "modpacks.public", publicModpacks, input, "bounded", publicModpackCount);
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
