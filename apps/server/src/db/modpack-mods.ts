import { CompiledQuery, sql } from "kysely";
import type { SortType } from "./cursors.js";
import type { Db } from "./database.js";
import { inLockOrder } from "./lock-order.js";
import { modColumnsSql } from "./mods.js";
import { afterSql, type FixedPageAt, orderSql, perSortAndOrder, sortValueSql } from "./paging.js";
import type { ModRow } from "./schema.js";
import { isoTime } from "./times.js";

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

/**
 * The texts of a modpack's page in one sort and order, written once: with or without a tag filter
 * (`$4`), each with or without a cursor (its sort value and id follow the tags).
 */
function packModsTexts(sortBy: "createdAt" | "name", order: "asc" | "desc") {
  const column = sortBy === "name" ? "mod_name" : "added_at";
  const type: SortType = sortBy === "name" ? "text" : "timestamptz";
  const sorted = (sort: string, id: string) => orderSql(sort, id, order);
  const text = (tagged: boolean, cursor: boolean) => {
    const ofTags = tagged ? "and l.mod_tags && $4::text[]" : "";
    const first = tagged ? 5 : 4;
    const after = cursor ? `and ${afterSql("l", { column, type }, order, `$${first}`, `$${first + 1}`)}` : "";
    return `select ${modColumnsSql("m")}, page.added_at as "addedAt", page.sort_value as "sortValue",
    page.cursor_id as "cursorId", page.exact_count as "exactCount"
  from (
    select l.mod_id, ${isoTime("l.added_at")} as added_at, ${sortValueSql(`l.${column}`, type)} as sort_value,
      l.id as cursor_id, l.${column} as page_sort,
      (select count(*)::int from modpack_mods as l where l.modpack_id = $3 and l.is_active ${ofTags}) as exact_count
    from modpack_mods as l where l.modpack_id = $3 and l.is_active ${ofTags} ${after}
    ${sorted(`l.${column}`, "l.id")} limit $1 offset $2
  ) as page cross join lateral (select * from mods where id = page.mod_id offset 0) as m
  ${sorted("page.page_sort", "page.cursor_id")}`;
  };
  return {
    all: { first: text(false, false), later: text(false, true) },
    tagged: { first: text(true, false), later: text(true, true) },
  };
}

/** A modpack's page texts of each sort and order (`packModsPage`). */
const packModsPages = perSortAndOrder(["createdAt", "name"], packModsTexts);

/**
 * A page of a modpack's mods in the order they were added or by name, optionally of some tags, as
 * one fixed statement per sort, order and shape (`listPage`'s `fixedPage`): cut from the links'
 * own index (the links keep their mod's name and tags, migration 0011), counted exactly from the
 * links alone, and only then the page's mods read by primary key, their times formatted
 * (`isoTime`). `$1` the rows to read, `$2` the offset, `$3` the modpack, then the tags and a
 * cursor's sort value and id.
 */
export function packModsPage(
  modpackId: string,
  sortBy: "createdAt" | "name",
  order: "asc" | "desc",
  tags: string[],
  { position, rows, offset }: FixedPageAt,
): CompiledQuery {
  const texts = packModsPages[sortBy][order][tags.length > 0 ? "tagged" : "all"];
  const values: unknown[] = [rows, offset, modpackId];
  if (tags.length > 0) values.push(tags);
  if (position) values.push(position.value, position.id);
  return CompiledQuery.raw(position ? texts.later : texts.first, values);
}
