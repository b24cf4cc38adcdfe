import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Two more things a modpack's reads answer move its read version (`modpacks.version`, 0008):
 *
 * - Its start reports: the list of them, and the check, which repeats what the latest start of the
 *   newest revision reported. A report that leaves the last good revision as it was changed no row
 *   of the modpack, so its version stayed, and a revalidation answered the list as it was before.
 * - The catalogue's title of a requirement the modpack lacks: the check and the server file name a
 *   missing requirement by it, when the catalogue has the item. A mod that enters the catalogue, or
 *   whose name or workshop id changes, moves the modpacks holding a mod that requires it. The index
 *   finds those mods by the ids they require.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create trigger server_starts_inserted after insert on server_starts
      referencing new table as new_rows for each statement execute function touch_modpacks_of_new_rows();
    create trigger server_starts_deleted after delete on server_starts
      referencing old table as old_rows for each statement execute function touch_modpacks_of_old_rows();

    create index mods_required_workshop_ids_idx on mods using gin (required_workshop_ids);

    create function touch_modpacks_requiring_new_mods() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select link.modpack_id
        from modpack_mods link join mods requirer on requirer.id = link.mod_id
        where requirer.required_workshop_ids && array(select workshop_id from new_rows)
      );
      return null;
    end
    $$;
    create function touch_modpacks_requiring_renamed_mods() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select link.modpack_id
        from modpack_mods link join mods requirer on requirer.id = link.mod_id
        where requirer.required_workshop_ids && array(
          select unnest(array[new_rows.workshop_id, old_rows.workshop_id])
          from new_rows join old_rows on old_rows.id = new_rows.id
          where (new_rows.name, new_rows.workshop_id) is distinct from (old_rows.name, old_rows.workshop_id)
        )
      );
      return null;
    end
    $$;
    create trigger mods_inserted after insert on mods
      referencing new table as new_rows for each statement execute function touch_modpacks_requiring_new_mods();
    create trigger mods_renamed after update on mods
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_requiring_renamed_mods();
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop trigger mods_renamed on mods;
    drop trigger mods_inserted on mods;
    drop function touch_modpacks_requiring_renamed_mods(), touch_modpacks_requiring_new_mods();
    drop index mods_required_workshop_ids_idx;
    drop trigger server_starts_deleted on server_starts;
    drop trigger server_starts_inserted on server_starts;
  `,
  );
}
