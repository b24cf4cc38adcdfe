import type { MemberPermission } from "@modpack/contract";
import type { TestService } from "./service.js";
import { workshopUrl } from "./workshop.js";

/** Rows written straight into the database, for tests that need a state no request builds quickly. */

export interface ModRow {
  workshopId: string;
  name?: string;
  description?: string;
  platformModIds?: string[];
  mapFolders?: string[];
  tags?: string[];
  timeUpdated?: Date;
}

export interface InsertedMod {
  id: string;
  workshopId: string;
}

/** Inserts catalogue mods (name `Mod <workshopId>` unless given) and answers their ids, in order. */
export async function insertMods(service: TestService, mods: ModRow[]): Promise<InsertedMod[]> {
  if (mods.length === 0) return [];
  return service.runtime.database.db
    .insertInto("mods")
    .values(
      mods.map((mod) => ({
        avatarUrl: null,
        ...mod,
        name: mod.name ?? `Mod ${mod.workshopId}`,
      })),
    )
    .returning(["id", "workshopId"])
    .execute();
}

/** Inserts one catalogue mod and answers its id and workshop id. */
export async function insertMod(service: TestService, mod: ModRow): Promise<InsertedMod> {
  const [row] = await insertMods(service, [mod]);
  if (!row) throw new Error("the mod was not inserted");
  return row;
}

export interface MemberRow {
  userId: string;
  permission: MemberPermission[];
}

export interface ModpackRow {
  ownerId: string;
  name?: string;
  isPublic?: boolean;
  /** Mods linked in this order (each added one second after the one before). */
  modIds?: string[];
  members?: MemberRow[];
}

let modpackCounter = 0;
let linkClock = Date.UTC(2026, 0, 1);

/** Inserts a modpack (private unless told) with its members and mod links, and answers its id. */
export async function insertModpack(service: TestService, row: ModpackRow): Promise<string> {
  modpackCounter += 1;
  const modpack = await service.runtime.database.db
    .insertInto("modpacks")
    .values({
      name: row.name ?? `Seeded pack ${modpackCounter}`,
      ownerId: row.ownerId,
      isPublic: row.isPublic ?? false,
      metadata: "{}",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await addMembers(service, modpack.id, row.members ?? []);
  await linkMods(service, modpack.id, row.ownerId, row.modIds ?? []);
  return modpack.id;
}

/** Makes users members of a modpack with the given permissions. */
export async function addMembers(service: TestService, modpackId: string, members: MemberRow[]): Promise<void> {
  if (members.length === 0) return;
  await service.runtime.database.db
    .insertInto("modpackMembers")
    .values(members.map((member) => ({ modpackId, userId: member.userId, permission: member.permission })))
    .execute();
}

/** Links mods to a modpack in the given order, each later than every link written before it. */
export async function linkMods(service: TestService, modpackId: string, addedBy: string, modIds: string[]) {
  if (modIds.length === 0) return;
  await service.runtime.database.db
    .insertInto("modpackMods")
    .values(
      modIds.map((modId) => {
        linkClock += 1000;
        return { modpackId, modId, addedBy, addedAt: new Date(linkClock) };
      }),
    )
    .execute();
}

/** The workshop ids of a modpack's active mods, sorted. */
export async function linkedWorkshopIds(service: TestService, modpackId: string): Promise<string[]> {
  const rows = await service.runtime.database.db
    .selectFrom("modpackMods")
    .innerJoin("mods", "mods.id", "modpackMods.modId")
    .select("mods.workshopId")
    .where("modpackMods.modpackId", "=", modpackId)
    .where("modpackMods.isActive", "=", true)
    .execute();
  return rows.map((row) => row.workshopId).sort();
}

type JobStatus = "pending" | "running" | "completed" | "failed";

export interface ExportRow {
  modpackId: string;
  requestedBy: string;
  version?: "41x" | "42x";
  status?: JobStatus;
  fileName?: string | null;
  content?: string | null;
  error?: string | null;
  finishedAt?: Date | null;
  createdAt?: Date;
}

/** Inserts export rows (no job works them: pending ones stay pending) and answers their ids, in order. */
export async function insertExports(service: TestService, rows: ExportRow[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await service.runtime.database.db
    .insertInto("exports")
    .values(rows.map((row) => ({ version: "41x" as const, fileName: null, content: null, error: null, ...row })))
    .returning("id")
    .execute();
  return inserted.map((row) => row.id);
}

/** Inserts an import row for a workshop collection (no job works it) and answers its id. */
export async function insertImport(
  service: TestService,
  row: { modpackId: string; requestedBy: string; collectionId: string; status?: JobStatus },
): Promise<string> {
  const inserted = await service.runtime.database.db
    .insertInto("imports")
    .values({
      ...row,
      platformUrl: workshopUrl(row.collectionId),
      itemsTotal: null,
      error: null,
      failures: "[]",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return inserted.id;
}
