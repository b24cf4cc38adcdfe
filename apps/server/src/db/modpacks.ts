import {
  accessDenied,
  type Caller,
  type Member,
  type MemberPermission,
  type Modpack,
  type ModpackAccess,
  type ModpackNeed,
  type ModpackSummary,
  memberPermissions,
  notFound,
  unauthorized,
} from "@modpack/contract";
import { CompiledQuery, type ExpressionBuilder, sql } from "kysely";
import type { Db } from "./database.js";
import { boundedPages, type FixedPageAt, type FixedSortBy, walkPages } from "./paging.js";
import type { Database, ModpackRow, ModpackUpdate } from "./schema.js";
import { searchTextSql } from "./search-text.js";
import { apiTime, isoTime, type ReadTime } from "./times.js";

/*
 * A modpack's row and members as every reader loads them, and the one rule on who may read or change
 * it (`readableBy`, `authorizeModpack`): the modpack services, the server file, the start reports and
 * the import job share them, so none of them imports another.
 */

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

export function toModpackSummary(
  row: Omit<SummaryRow, "createdAt" | "updatedAt"> & { createdAt: ReadTime; updatedAt: ReadTime },
): ModpackSummary {
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
    createdAt: apiTime(row.createdAt),
    updatedAt: apiTime(row.updatedAt),
  };
}

/**
 * A summary's columns of the row `row` under the names the answer reads (a fixed page is read without
 * the CamelCasePlugin), its times formatted (`isoTime`).
 */
const summarySql = (row: string) =>
  `${row}.id, ${row}.name, ${row}.description, ${row}.avatar_url as "avatarUrl", ${row}.platform_url as "platformUrl",
  ${row}.owner_id as "ownerId", ${row}.is_public as "isPublic", ${row}.is_verified as "isVerified",
  ${row}.is_active as "isActive", ${isoTime(`${row}.created_at`)} as "createdAt",
  ${isoTime(`${row}.updated_at`)} as "updatedAt"`;

/**
 * A page of the unfiltered public list, one fixed statement per sort and order (`listPage`'s
 * `fixedPage`): the list every visitor reads first. The public, active modpacks are exactly the rows
 * of the partial indexes on them (migration 0001), whose row count stands for the total above the
 * exact count (`boundedPages`). The times come formatted (`isoTime`); the sort and the cursor read
 * the columns themselves, to the microsecond.
 */
export const publicModpacksPage = boundedPages({
  table: "modpacks",
  where: "modpacks.is_active and modpacks.is_public",
  columns: summarySql,
  statistics: "to_regclass('modpacks_public_created_idx')",
});

const publicSearches = walkPages({
  table: "modpacks",
  where: (row) => `${row}.is_active and ${row}.is_public`,
  columns: summarySql,
});

/**
 * A page of a search of the public list, one fixed statement per sort, order and number of terms
 * (`walkPages`): the sort's partial index walked a bounded distance, each public modpack's search
 * text tested, else every match from the trigram index.
 */
export function publicSearchPage(
  sortBy: FixedSortBy,
  order: "asc" | "desc",
  search: string,
  at: FixedPageAt,
): CompiledQuery {
  return publicSearches(sortBy, order, (row, parameter) => searchTextSql(`${row}.search_text`, search, parameter), at);
}

const memberPermissionValues = new Set<string>(memberPermissions);

/** A modpack row as the single-modpack reads answer it, without its members. */
export function toModpack(
  row: SummaryRow & Pick<ModpackRow, "metadata" | "revision" | "lastGoodB41" | "lastGoodB42">,
): Omit<Modpack, "members"> {
  return {
    ...toModpackSummary(row),
    metadata: row.metadata ?? {},
    revision: row.revision,
    lastGoodRevision: { "41x": row.lastGoodB41, "42x": row.lastGoodB42 },
  };
}

/** A member as `MEMBERS_JSON` holds it: the member row and its user's name and image. */
interface MemberRow {
  userId: string;
  name: string;
  image: string | null;
  permission: string[];
  isActive: boolean;
  /** Already in the API's form (see `isoTime`). */
  createdAt: string;
  updatedAt: string;
}

function toMember(row: MemberRow): Member {
  return {
    ...row,
    image: row.image ?? "",
    permission: row.permission.filter((value) => memberPermissionValues.has(value)) as MemberPermission[],
  };
}

/**
 * The active members of the modpack a statement reads (`modpacks`), oldest first, as one JSON array:
 * the one writer of that list, so a read of a modpack with its members is one statement.
 */
const MEMBERS_JSON = `(select coalesce(json_agg(json_build_object(
    'userId', m.user_id, 'name', u.name, 'image', u.image, 'permission', m.permission,
    'isActive', m.is_active, 'createdAt', ${isoTime("m.created_at")}, 'updatedAt', ${isoTime("m.updated_at")}
  ) order by m.created_at, m.user_id), '[]')
  from modpack_members m join users u on u.id = m.user_id
  where m.modpack_id = modpacks.id and m.is_active)`;

const membersStatement = `select ${MEMBERS_JSON} as members from modpacks where id = $1`;
const modpackStatement = `select modpacks.*, ${MEMBERS_JSON} as members from modpacks where id = $1`;

/** The active members of a modpack with their names, oldest first (none when there is no such modpack). */
export async function loadMembers(db: Db, modpackId: string): Promise<Member[]> {
  const { rows } = await db.executeQuery<{ members: MemberRow[] }>(CompiledQuery.raw(membersStatement, [modpackId]));
  return (rows[0]?.members ?? []).map(toMember);
}

/** A modpack with its members and metadata, as the single-modpack reads answer it. */
export async function loadModpack(db: Db, id: string): Promise<Modpack> {
  const { rows } = await db.executeQuery<ModpackRow & { members: MemberRow[] }>(
    CompiledQuery.raw(modpackStatement, [id]),
  );
  const row = rows[0];
  if (!row) throw notFound("Modpack not found");
  return { ...toModpack(row), members: row.members.map(toMember) };
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
 * anywhere else it is left out. With no caller: the active public modpacks. `authorizeModpack`
 * turns a refusal into 404 when the modpack is archived, 403 when it is active; its statement is
 * this rule written in SQL for one modpack, and `authorization.test.ts` holds both to one table.
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

/** The user id no caller has: an anonymous access check runs the same query with it. */
const NO_USER = "00000000-0000-0000-0000-000000000000";

/** A restore changes links, order and selection: a member needs all three permissions. */
const RESTORE_NEEDS = ["add-mod", "remove-mod", "configure"] as const;

/**
 * The rule's statement: the modpack, the caller's active membership (`$2`, `NO_USER` without a
 * caller), and `readableBy` for that caller (archived included) and for anyone. Its text is fixed,
 * so it is built once and runs as one prepared statement per connection: every request on one
 * modpack starts with it.
 */
const ruleSelect = `select modpacks.*, mine.permission,
    modpacks.owner_id = $2 or (modpacks.is_active and (modpacks.is_public or mine.user_id is not null)) as readable,
    modpacks.is_active and modpacks.is_public as readable_by_anyone`;
const ruleFrom = ` from modpacks
  left join modpack_members mine on mine.modpack_id = modpacks.id and mine.user_id = $2 and mine.is_active
  where modpacks.id = $1`;
const ruleStatement = ruleSelect + ruleFrom;
const ruleWithMembersStatement = `${ruleSelect}, ${MEMBERS_JSON} as members${ruleFrom}`;

type RuleRow = ModpackRow & {
  permission: string[] | null;
  readable: boolean;
  readableByAnyone: boolean;
  members?: MemberRow[];
};

/**
 * The resource rule on one modpack, from one indexed lookup (the modpack and the caller's active
 * membership): 404 when the caller may not know it exists, 403 when they may not do `need`. Reads
 * follow `readableBy`; changes need the owner or a member holding the permission, and an archived
 * modpack only its owner. The access carries the row it read, and its version (`p<version>`): a read
 * of the modpack's answer is never older than that version.
 */
export async function authorizeModpack(
  db: Db,
  caller: Pick<Caller, "userId" | "modpackIds"> | null,
  id: string,
  need: ModpackNeed,
  options: { members?: boolean } = {},
): Promise<ModpackAccess> {
  // A token limited to other modpacks meets this one as a stranger would.
  const userId = caller && (!caller.modpackIds || caller.modpackIds.includes(id)) ? caller.userId : NO_USER;
  const { rows } = await db.executeQuery<RuleRow>(
    CompiledQuery.raw(options.members === true ? ruleWithMembersStatement : ruleStatement, [id, userId]),
  );
  const row = rows[0];
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
