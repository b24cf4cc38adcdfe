import { sql } from "kysely";
import type { Db } from "./database.js";

/**
 * The one order in which writers lock several catalogue rows: by workshop id, compared as plain
 * characters (`collate "C"` in SQL). A catalogue upsert locks each existing row it refreshes, and a
 * link insert reads each linked mod `for share` (migration 0011); taken in opposite orders by two
 * transactions, the same two mods would deadlock them. So an upsert's rows, a link insert's rows,
 * a modpack's copied links, the mod update's deactivations and the reparse's rows all go in this
 * order. It orders the `mods` rows only: the read-version triggers (migration 0008) then touch the
 * modpacks those statements reach in their own order: a request that meets a deadlock there answers
 * 503, and a job retries.
 */
export function inLockOrder<T extends { workshopId: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => (a.workshopId < b.workshopId ? -1 : a.workshopId > b.workshopId ? 1 : 0));
}

/** The lock order in SQL, for statements that read catalogue rows as `mods`. */
export const modsInLockOrder = sql`mods.workshop_id collate "C"`;

/**
 * The ids of the catalogue rows `ids`, each locked for an update in the lock order: an update whose
 * `where` takes its rows from it has them all before it changes the first.
 */
export function lockModsInOrder(db: Db, ids: string[]) {
  return db.selectFrom("mods").select("mods.id").where("mods.id", "in", ids).orderBy(modsInLockOrder).forNoKeyUpdate();
}
