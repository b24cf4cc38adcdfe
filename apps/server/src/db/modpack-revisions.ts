import { isDeepStrictEqual } from "node:util";
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { applyConfiguration, idLookup, type ModSelection, toPackMod, writtenIdsOf } from "../modpack/pack-mods.js";
import { byKey, type KeyedMod, planRevision, type RevisionMod } from "../modpack/revision-state.js";
import type { Db } from "./database.js";
import type { Database, RevisionReason } from "./schema.js";

/*
 * Recording a modpack's revisions: every path that changes what goes into the pack's server file
 * calls `recordRevision` in its own transaction, after its change. The revision is the pack's state
 * as that transaction sees it; the modpack's row lock gives concurrent writers distinct, gapless
 * numbers, each revision holding its own change. It is `for no key update`, the lock the read-version
 * trigger of a link insert takes too: a `for update` would also wait for the key-share locks that
 * other writers' link inserts hold on the row, and deadlock with them.
 */

/** Whether the pack's `modpack.changed` event is wanted; when it is, the event is queued. */
export type AnnounceRevision = (trx: Db, modpackId: string) => Promise<boolean>;

export interface RevisionContext {
  reason: RevisionReason;
  /** Who made the change; null for the workshop. */
  authorId: string | null;
  /** Queues the `modpack.changed` event; without it the revision is announced to nobody. */
  announce?: AnnounceRevision | undefined;
}

/** The pack's active mods in load order, as a revision records them. */
export async function liveState(db: Db, modpackId: string): Promise<RevisionMod[]> {
  const [rows, saved] = await Promise.all([
    db
      .selectFrom("modpackMods as link")
      .innerJoin("mods", "mods.id", "link.modId")
      .select([
        "mods.id",
        "mods.name",
        "mods.workshopId",
        "mods.platformModIds",
        "mods.modIdsB41",
        "mods.modIdsB42",
        "mods.mapFolders",
        "mods.tags",
        "mods.requiredWorkshopIds",
        "mods.isActive as available",
        "mods.timeUpdated",
      ])
      .where("link.modpackId", "=", modpackId)
      .where("link.isActive", "=", true)
      .orderBy("link.addedAt")
      .orderBy("link.id")
      .execute(),
    db
      .selectFrom("exportConfigurations")
      .select(["modsOrder", "modConfig"])
      .where("modpackId", "=", modpackId)
      .executeTakeFirst(),
  ]);
  const timeUpdated = new Map(rows.map((row) => [row.id, row.timeUpdated]));
  const effective = applyConfiguration(
    rows.map(toPackMod),
    saved ? { modsOrder: saved.modsOrder, modConfig: saved.modConfig ?? {} } : undefined,
  );
  return effective.mods.map((mod, position) => {
    const selection = effective.selections[position]!;
    const selected = selection.selectedPlatformModIds;
    const all = selected.length === mod.platformModIds.length && mod.platformModIds.every(idLookup(selected));
    return {
      id: mod.id,
      workshopId: mod.workshopId,
      name: mod.name,
      selected: all ? null : [...selected],
      custom: [...selection.customPlatformModIds],
      idsB41: writtenIds(mod, selection, "41x"),
      idsB42: writtenIds(mod, selection, "42x"),
      mapFolders: mod.mapFolders,
      requiredWorkshopIds: mod.requiredWorkshopIds,
      timeUpdated: timeUpdated.get(mod.id) ?? null,
    };
  });
}

/** The ids one mod writes into a version's file: its selected ids of that version, then its custom ids. */
function writtenIds(
  mod: Parameters<typeof writtenIdsOf>[0],
  selection: ModSelection,
  version: "41x" | "42x",
): string[] {
  const written = writtenIdsOf(mod, selection, version);
  const chosen = idLookup([...written.selected, ...written.custom]);
  return [...written.versionIds.filter(chosen), ...written.custom.filter((id) => !written.versionIds.includes(id))];
}

/** An entry as the readers below get it: its mod, its key and the revisions it holds. */
type StoredEntry = KeyedMod & { firstNumber: number; untilNumber: number | null };

/**
 * The entries of a pack that `where` keeps, as one JSON array: pg parses it with one `JSON.parse`,
 * where six `text[]` columns a row would each be parsed on their own, which a revision of a large
 * pack feels.
 */
async function entries(
  db: Db,
  modpackId: string,
  where: (eb: ExpressionBuilder<Database, "modpackRevisionMods">) => Expression<SqlBool>,
): Promise<StoredEntry[]> {
  const row = await db
    .selectFrom("modpackRevisionMods")
    .select(
      sql<(Omit<StoredEntry, "timeUpdated"> & { timeUpdated: string | null })[] | null>`json_agg(json_build_object(
        'id', mod_id, 'workshopId', workshop_id, 'name', name, 'selected', selected, 'custom', custom,
        'idsB41', ids_b41, 'idsB42', ids_b42, 'mapFolders', map_folders,
        'requiredWorkshopIds', required_workshop_ids, 'timeUpdated', time_updated, 'sortKey', sort_key,
        'firstNumber', first_number, 'untilNumber', until_number
      ))`.as("mods"),
    )
    .where("modpackId", "=", modpackId)
    .where(where)
    .executeTakeFirst();
  return (row?.mods ?? []).map((entry) => ({
    ...entry,
    timeUpdated: entry.timeUpdated === null ? null : new Date(entry.timeUpdated),
  }));
}

const holds = (entry: StoredEntry, number: number) =>
  entry.firstNumber <= number && (entry.untilNumber === null || entry.untilNumber > number);

const keyed = ({ firstNumber: _first, untilNumber: _until, ...mod }: StoredEntry): KeyedMod => mod;

/** The mods of revision `number` in load order (none for 0). */
export async function stateAt(db: Db, modpackId: string, number: number): Promise<KeyedMod[]> {
  if (number === 0) return [];
  const rows = await entries(db, modpackId, (eb) =>
    eb.and([eb("firstNumber", "<=", number), eb.or([eb("untilNumber", "is", null), eb("untilNumber", ">", number)])]),
  );
  return rows.map(keyed).sort(byKey);
}

/**
 * The mods of two revisions in load order, read in one statement: the entries that hold anywhere
 * between the two, each kept for the revisions it holds.
 */
export async function statesAt(db: Db, modpackId: string, a: number, b: number): Promise<[KeyedMod[], KeyedMod[]]> {
  const low = Math.min(a, b);
  const high = Math.max(a, b);
  if (high === 0) return [[], []];
  const rows = await entries(db, modpackId, (eb) =>
    eb.and([eb("firstNumber", "<=", high), eb.or([eb("untilNumber", "is", null), eb("untilNumber", ">", low)])]),
  );
  const at = (number: number) =>
    number === 0
      ? []
      : rows
          .filter((row) => holds(row, number))
          .map(keyed)
          .sort(byKey);
  return [at(a), at(b)];
}

/** The newest revision's mods, in load order. */
async function headState(db: Db, modpackId: string): Promise<KeyedMod[]> {
  const rows = await entries(db, modpackId, (eb) => eb("untilNumber", "is", null));
  return rows.map(keyed).sort(byKey);
}

/**
 * Records the pack's state as a new revision when it differs from the newest one, in `trx` (a
 * transaction, after the change it records). Answers the new number, or null when the state is the
 * newest revision's (a change that changed nothing the server file reads) or the pack is gone.
 */
export async function recordRevision(trx: Db, modpackId: string, context: RevisionContext): Promise<number | null> {
  const pack = await trx
    .selectFrom("modpacks")
    .select("revision")
    .where("id", "=", modpackId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!pack) return null;
  const live = await liveState(trx, modpackId);
  const head = await headState(trx, modpackId);
  const plan = planRevision(head, live);
  if (!plan.changed) return null;
  const number = pack.revision + 1;
  const announced = context.announce ? !(await context.announce(trx, modpackId)) : true;
  await trx
    .insertInto("modpackRevisions")
    .values({
      modpackId,
      number,
      reason: context.reason,
      authorId: context.authorId,
      ...plan.counts,
      announced,
    })
    .execute();
  if (plan.close.length > 0) {
    await trx
      .updateTable("modpackRevisionMods")
      .set({ untilNumber: number })
      .where("modpackId", "=", modpackId)
      .where("untilNumber", "is", null)
      .where("modId", "=", sql<string>`any(${plan.close}::uuid[])`)
      .execute();
  }
  if (plan.open.length > 0) {
    await trx
      .insertInto("modpackRevisionMods")
      .values(
        plan.open.map(({ id, ...entry }) => ({
          modpackId,
          modId: id,
          firstNumber: number,
          ...entry,
        })),
      )
      .execute();
  }
  await trx.updateTable("modpacks").set({ revision: number }).where("id", "=", modpackId).execute();
  return number;
}

/** Runs `work` in a transaction: `db`'s own when it is one, a new one otherwise. */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Records a `workshop` revision (no author) in every pack that holds one of `modIds`, after the
 * catalogue changed them: only where a pack's file changed. The packs are locked in id order.
 */
export async function recordCatalogueRevisions(db: Db, modIds: readonly string[]): Promise<number> {
  if (modIds.length === 0) return 0;
  const holders = await db
    .selectFrom("modpackMods")
    .select("modpackId")
    .distinct()
    .where("modId", "=", sql<string>`any(${[...modIds]}::uuid[])`)
    .where("isActive", "=", true)
    .orderBy("modpackId")
    .execute();
  let recorded = 0;
  for (const { modpackId } of holders) {
    const number = await inTransaction(db, (trx) =>
      recordRevision(trx, modpackId, { reason: "workshop", authorId: null }),
    );
    if (number !== null) recorded += 1;
  }
  return recorded;
}

/**
 * Keeps whole the saved selections that held all of a mod's ids when the catalogue renames or adds
 * ids: such a selection then holds all of the new ones, where filtering it to the new ids would
 * leave the mod out of the file.
 */
export async function keepWholeSelections(
  db: Db,
  changes: readonly { modId: string; before: string[]; after: string[] }[],
): Promise<void> {
  for (const { modId, before, after } of changes) {
    if (before.length === 0 || isDeepStrictEqual(before, after)) continue;
    await db
      .updateTable("exportConfigurations")
      .set({
        modConfig: sql`jsonb_set(mod_config, array[${modId}::text, 'selectedPlatformModIds'], ${JSON.stringify(after)}::jsonb)`,
      })
      .where(sql<boolean>`jsonb_exists(mod_config, ${modId}::text)`)
      .where(
        sql<boolean>`(mod_config -> ${modId}::text -> 'selectedPlatformModIds') @> ${JSON.stringify(before)}::jsonb`,
      )
      .execute();
  }
}

/** Records the first revision (`initial`) of the packs that held mods when revisions began. */
export async function recordPendingInitialRevisions(db: Db): Promise<number> {
  const pending = await db.selectFrom("pendingInitialRevisions").select("modpackId").execute();
  for (const { modpackId } of pending) {
    await db.transaction().execute(async (trx) => {
      await recordRevision(trx, modpackId, { reason: "initial", authorId: null });
      await trx.deleteFrom("pendingInitialRevisions").where("modpackId", "=", modpackId).execute();
    });
  }
  return pending.length;
}
