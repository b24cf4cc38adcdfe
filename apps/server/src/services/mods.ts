import {
  badGateway,
  type Caller,
  type Mod,
  notFound,
  parseWorkshopUrl,
  type Services,
  unprocessable,
} from "@modpack/contract";
import { type RawBuilder, type SqlBool, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ModRow } from "../db/schema.js";
import type { Jobs } from "../jobs/boss.js";
import { MOD_UPDATE_QUEUE } from "../jobs/queues.js";
import { type WorkshopClient, WorkshopError, type WorkshopItem, type WorkshopItemResult } from "../workshop/client.js";
import { likePattern, offsetOf, pagination } from "./paging.js";

const WORKSHOP_ID = /^\d{1,20}$/;
const HTTP_URL = /^https?:\/\//i;
const WORKSHOP_UNREACHABLE = "The Steam Workshop could not be reached; try again";

export function toMod(row: ModRow): Mod {
  return {
    id: row.id,
    name: row.name,
    workshopId: row.workshopId,
    platformModId: row.platformModIds,
    mapFolders: row.mapFolders,
    requiredWorkshopIds: row.requiredWorkshopIds,
    description: row.description,
    avatarUrl: row.avatarUrl ?? "",
    tags: row.tags,
    isActive: row.isActive,
    timeUpdated: row.timeUpdated ? row.timeUpdated.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A catalogue row with the `xmax = 0` flag of an upsert: true when the statement inserted it. */
type UpsertedRow = ModRow & { inserted: boolean };

async function upsertRows(db: Db, items: WorkshopItem[]): Promise<UpsertedRow[]> {
  const byId = new Map<string, WorkshopItem>();
  for (const item of items) byId.set(item.workshopId, item);
  if (byId.size === 0) return [];
  const rows = await db
    .insertInto("mods")
    .values(
      [...byId.values()].map((item) => ({
        workshopId: item.workshopId,
        name: item.title,
        description: item.description,
        avatarUrl: item.previewUrl,
        platformModIds: item.platformModIds,
        mapFolders: item.mapFolders,
        requiredWorkshopIds: item.requiredWorkshopIds,
        tags: item.tags,
        timeUpdated: item.timeUpdated,
        isActive: true,
      })),
    )
    .onConflict((conflict) =>
      conflict.column("workshopId").doUpdateSet((eb) => ({
        name: eb.ref("excluded.name"),
        description: eb.ref("excluded.description"),
        avatarUrl: eb.ref("excluded.avatarUrl"),
        platformModIds: eb.ref("excluded.platformModIds"),
        mapFolders: eb.ref("excluded.mapFolders"),
        requiredWorkshopIds: eb.ref("excluded.requiredWorkshopIds"),
        tags: eb.ref("excluded.tags"),
        timeUpdated: eb.ref("excluded.timeUpdated"),
        isActive: true,
        updatedAt: sql<Date>`now()`,
      })),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as("inserted"))
    .execute();
  return rows;
}

/**
 * Adds workshop items to the catalogue or refreshes the ones already there, in one statement
 * (duplicates in the input count once, the last one winning). Answers the rows in no fixed order.
 */
export async function upsertWorkshopItems(db: Db, items: WorkshopItem[]): Promise<ModRow[]> {
  const rows = await upsertRows(db, items);
  return rows.map(({ inserted: _inserted, ...row }) => row);
}

/** The one workshop item behind an id, or the reason it cannot be a mod (422), or 502. */
async function fetchItem(workshop: WorkshopClient, workshopId: string): Promise<WorkshopItemResult> {
  let results: WorkshopItemResult[];
  try {
    results = await workshop.getItems([workshopId]);
  } catch (error) {
    if (error instanceof WorkshopError) throw badGateway(WORKSHOP_UNREACHABLE);
    throw error;
  }
  return results[0] ?? { ok: false, workshopId, reason: "missing" };
}

function refusal(result: Extract<WorkshopItemResult, { ok: false }>) {
  switch (result.reason) {
    case "collection":
      return unprocessable(
        `Workshop item ${result.workshopId} is a collection; import it with POST /modpacks/{id}/import`,
      );
    case "wrong_game":
      return unprocessable(`Workshop item ${result.workshopId} is not a Project Zomboid item`);
    default:
      return unprocessable(`Workshop item ${result.workshopId} does not exist or is not available`);
  }
}

/** The workshop id a reference names (a workshop URL or bare digits, leading zeros dropped), or null. */
function workshopIdOf(reference: string): string | null {
  const id = parseWorkshopUrl(reference) ?? (WORKSHOP_ID.test(reference) ? reference : null);
  return id === null ? null : id.replace(/^0+(?=\d)/, "");
}

/**
 * Finds the catalogue mod a reference names: a workshop URL or id (fetched from the workshop and
 * added when the catalogue does not have it yet), or an in-game mod id already in the catalogue.
 * `created` is true when this call added the mod to the catalogue.
 */
export async function resolveModReference(
  db: Db,
  workshop: WorkshopClient,
  reference: string,
): Promise<{ mod: ModRow; created: boolean }> {
  const text = reference.trim();
  const workshopId = workshopIdOf(text);
  if (workshopId !== null) {
    const known = await db.selectFrom("mods").selectAll().where("workshopId", "=", workshopId).executeTakeFirst();
    if (known) return { mod: known, created: false };
    const result = await fetchItem(workshop, workshopId);
    if (!result.ok) throw refusal(result);
    const [row] = await upsertRows(db, [result.item]);
    if (!row) throw new Error(`upserting workshop item ${workshopId} returned no row`);
    const { inserted, ...mod } = row;
    return { mod, created: inserted };
  }
  if (HTTP_URL.test(text)) throw unprocessable("Not a Steam Workshop URL");
  // Several workshop items may ship the same in-game id: the active one updated last wins.
  const mod = await db
    .selectFrom("mods")
    .selectAll()
    .where(sql<SqlBool>`${sql.ref("platformModIds")} @> array[${text}]::text[]`)
    .orderBy("isActive", "desc")
    .orderBy("updatedAt", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!mod) throw unprocessable(`No mod in the catalogue has in-game id ${text}; add it by workshop URL or id`);
  return { mod, created: false };
}

/** Name, description, workshop id (case-insensitive substring) or an exact in-game id. */
export function modSearchCondition(search: string): RawBuilder<SqlBool> {
  const pattern = likePattern(search);
  return sql<SqlBool>`(${sql.ref("mods.name")} ilike ${pattern} or ${sql.ref("mods.description")} ilike ${pattern} or ${sql.ref("mods.workshopId")} ilike ${pattern} or ${sql.ref("mods.platformModIds")} @> array[${search}]::text[])`;
}

/** Mods carrying any of the tags (uses the GIN index on `tags`). */
export function modTagsCondition(tags: string[]): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref("mods.tags")} && array[${sql.join(tags)}]::text[]`;
}

/** `count(*) over ()`: the number of matching rows, beside each row of the page. */
export const totalOverAll = sql<number>`(count(*) over ())::int`;

/** The modpack is active and the caller may read it: public, or theirs, or shared with them. */
function modpackVisible(modpackId: string, caller: Caller | null): RawBuilder<SqlBool> {
  if (!caller) {
    return sql<SqlBool>`exists (select 1 from modpacks p where p.id = ${modpackId} and p.is_active and p.is_public)`;
  }
  return sql<SqlBool>`exists (
    select 1 from modpacks p
    where p.id = ${modpackId} and p.is_active
      and (p.is_public or p.owner_id = ${caller.userId} or exists (
        select 1 from modpack_members m
        where m.modpack_id = p.id and m.user_id = ${caller.userId} and m.is_active
      ))
  )`;
}

const modSortColumns = {
  createdAt: "mods.createdAt",
  updatedAt: "mods.updatedAt",
  name: "mods.name",
} as const;

export function modsService(deps: { db: Db; workshop: WorkshopClient; jobs: Jobs }): Services["mods"] {
  const { db, workshop, jobs } = deps;

  async function loadMod(id: string): Promise<ModRow> {
    const row = await db.selectFrom("mods").selectAll().where("id", "=", id).executeTakeFirst();
    if (!row) throw notFound("Mod not found");
    return row;
  }

  return {
    async list(caller, input) {
      const { page, limit, search, tags, modpackId, sortBy, sortOrder } = input;
      let filtered = db.selectFrom("mods");
      if (modpackId) {
        filtered = filtered
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom("modpackMods")
                .select(sql.lit(1).as("one"))
                .whereRef("modpackMods.modId", "=", "mods.id")
                .where("modpackMods.modpackId", "=", modpackId)
                .where("modpackMods.isActive", "=", true),
            ),
          )
          .where(modpackVisible(modpackId, caller));
      }
      if (search) filtered = filtered.where(modSearchCondition(search));
      if (tags.length > 0) filtered = filtered.where(modTagsCondition(tags));

      // The total as a scalar subquery, not a window count: the count can use the search and tag
      // indexes while the page walks the sort index and stops after `limit` (see modpacks' listPage).
      const rows = await filtered
        .selectAll("mods")
        .select(filtered.select(sql<number>`count(*)::int`.as("count")).as("total"))
        .orderBy(modSortColumns[sortBy], sortOrder)
        .orderBy("mods.id", sortOrder)
        .limit(limit)
        .offset(offsetOf(page, limit))
        .execute();

      let total = rows[0]?.total ?? 0;
      if (rows.length === 0 && (page > 1 || modpackId)) {
        // An empty page: count separately, and tell an empty modpack from one the caller may not see.
        const counted = await db
          .selectNoFrom((eb) => [
            eb
              .selectFrom(filtered.select(sql.lit(1).as("one")).as("matching"))
              .select(sql<number>`count(*)::int`.as("count"))
              .as("total"),
            (modpackId ? modpackVisible(modpackId, caller) : sql<SqlBool>`true`).as("visible"),
          ])
          .executeTakeFirstOrThrow();
        if (!counted.visible) throw notFound("Modpack not found");
        total = Number(counted.total ?? 0);
      }
      return {
        data: rows.map(({ total: _total, ...row }) => toMod(row)),
        pagination: pagination(page, limit, total),
      };
    },

    async tags() {
      const { rows } = await sql<{ name: string; count: number }>`
        select tag as name, count(*)::int as count
        from mods cross join lateral unnest(mods.tags) as tag
        group by tag
        order by count(*) desc, tag asc
      `.execute(db);
      return { tags: rows.map((row) => ({ name: row.name, count: Number(row.count) })) };
    },

    async get(id) {
      return toMod(await loadMod(id));
    },

    async create(_caller, reference) {
      const text = reference.trim();
      if (workshopIdOf(text) === null && !HTTP_URL.test(text)) throw unprocessable("Give a workshop URL or id");
      const { mod, created } = await resolveModReference(db, workshop, text);
      return { ...toMod(mod), created };
    },

    async refresh(_caller, id) {
      const current = await loadMod(id);
      const result = await fetchItem(workshop, current.workshopId);
      if (result.ok) {
        const [row] = await upsertWorkshopItems(db, [result.item]);
        return toMod(row ?? current);
      }
      // Gone from the workshop (removed, banned, or no longer a Project Zomboid item): keep it, inactive.
      const row = await db
        .updateTable("mods")
        .set({ isActive: false, updatedAt: sql<Date>`now()` })
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      if (!row) throw notFound("Mod not found");
      return toMod(row);
    },

    async updateAll(caller) {
      const jobId = await jobs.send(MOD_UPDATE_QUEUE, { requestedBy: caller.userId }, { singletonKey: "update-all" });
      return {
        message: jobId ? "Mod update check queued" : "A mod update check is already queued",
        jobId,
      };
    },
  };
}
