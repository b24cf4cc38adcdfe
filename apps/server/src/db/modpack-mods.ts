import { sql } from "kysely";
import type { Db } from "./database.js";
import { inLockOrder } from "./lock-order.js";
import type { ModRow } from "./schema.js";

/* The links of a modpack to catalogue mods, as adding a mod, an import and a restore write them. */

/** The columns of a link the contract answers. */
export const linkColumns = ["id", "modpackId", "modId", "isActive", "createdAt"] as const;

/**
 * Links mods to a modpack in one statement, in the given order (each a microsecond after the one
 * before, so the default load order follows it); an active link is left alone and a removed one
 * comes back, added by `addedBy`. Answers the links this created or reactivated, in the given
 * order. The one way links are made, by adding a mod and by an import alike. The rows are written
 * in the catalogue's lock order (`inLockOrder`), as each reads its mod `for share`.
 */
export async function linkMods(db: Db, modpackId: string, mods: Pick<ModRow, "id" | "workshopId">[], addedBy: string) {
  // Each mod once, at its first place in the list.
  const distinct = [...new Map(mods.map((mod) => [mod.id, mod])).values()];
  if (distinct.length === 0) return [];
  const position = new Map(distinct.map((mod, index) => [mod.id, index]));
  const at = (modId: string) => sql<Date>`now() + ${position.get(modId)}::int * interval '1 microsecond'`;
  const links = await db
    .insertInto("modpackMods")
    .values(inLockOrder(distinct).map((mod) => ({ modpackId, modId: mod.id, addedBy, addedAt: at(mod.id) })))
    .onConflict((conflict) =>
      conflict
        .columns(["modpackId", "modId"])
        .doUpdateSet((eb) => ({
          isActive: true,
          addedBy: eb.ref("excluded.addedBy"),
          addedAt: eb.ref("excluded.addedAt"),
          updatedAt: sql<Date>`now()`,
        }))
        .where("modpackMods.isActive", "=", false),
    )
    .returning(linkColumns)
    .execute();
  return links.sort((a, b) => (position.get(a.modId) ?? 0) - (position.get(b.modId) ?? 0));
}
