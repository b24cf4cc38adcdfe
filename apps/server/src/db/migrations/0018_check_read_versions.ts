import { type Kysely, sql } from "kysely";
import { buildIndexConcurrently, executeScript } from "../script.js";

/**
 * Three more things a modpack's reads answer move its read version (`modpacks.version`, 0008):
 *
 * - Its start reports: the list of them, and the check, which repeats what the latest start of the
 *   newest revision reported. A report that leaves the last good revision as it was changed no row
 *   of the modpack, so its version stayed, and a revalidation answered the list as it was before.
 * - The catalogue's title of a requirement the modpack lacks: the check and the server file name a
 *   missing requirement by it, when the catalogue has the item. A mod that enters or leaves the
 *   catalogue, or whose name or workshop id changes, moves the modpacks holding an active mod that
 *   requires it. The index finds those mods by the ids they require.
 * - The name of a revision's author: the history names who made each revision, and an author who
 *   is not a member (the owner, a member who left) moved no version when renamed (0008 moves the
 *   members' modpacks). The index finds the revisions an author made.
 *
 * Run outside a transaction (`transactional = false`), like 0012: the index is built
 * `concurrently`, so catalogue writes go on while it builds, and every step can run again after an
 * interruption.
 */
export const transactional = false;

/** The modpacks holding an active mod that requires one of the workshop ids `ids` selects. */
const requirersOf = (ids: string) => `
      update modpacks set version = version + 1
      where id in (
        select link.modpack_id
        from modpack_mods link join mods requirer on requirer.id = link.mod_id
        where link.is_active and requirer.required_workshop_ids && array(${ids})
      );`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop trigger if exists server_starts_inserted on server_starts;
    create trigger server_starts_inserted after insert on server_starts
      referencing new table as new_rows for each statement execute function touch_modpacks_of_new_rows();
    drop trigger if exists server_starts_deleted on server_starts;
    create trigger server_starts_deleted after delete on server_starts
      referencing old table as old_rows for each statement execute function touch_modpacks_of_old_rows();

    create or replace function touch_modpacks_requiring_new_mods() returns trigger language plpgsql as $$
    begin${requirersOf("select workshop_id from new_rows")}
      return null;
    end
    $$;
    create or replace function touch_modpacks_requiring_old_mods() returns trigger language plpgsql as $$
    begin${requirersOf("select workshop_id from old_rows")}
      return null;
    end
    $$;
    create or replace function touch_modpacks_requiring_renamed_mods() returns trigger language plpgsql as $$
    begin${requirersOf(`
          select unnest(array[new_rows.workshop_id, old_rows.workshop_id])
          from new_rows join old_rows on old_rows.id = new_rows.id
          where (new_rows.name, new_rows.workshop_id) is distinct from (old_rows.name, old_rows.workshop_id)
        `)}
      return null;
    end
    $$;
    drop trigger if exists mods_inserted on mods;
    create trigger mods_inserted after insert on mods
      referencing new table as new_rows for each statement execute function touch_modpacks_requiring_new_mods();
    drop trigger if exists mods_deleted on mods;
    create trigger mods_deleted after delete on mods
      referencing old table as old_rows for each statement execute function touch_modpacks_requiring_old_mods();
    drop trigger if exists mods_renamed on mods;
    create trigger mods_renamed after update on mods
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_requiring_renamed_mods();

    create or replace function touch_modpacks_of_authors() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select revision.modpack_id
        from new_rows join old_rows on old_rows.id = new_rows.id
        join modpack_revisions revision on revision.author_id = new_rows.id
        where new_rows.name is distinct from old_rows.name
      );
      return null;
    end
    $$;
    drop trigger if exists users_renamed on users;
    create trigger users_renamed after update on users
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_authors();
  `,
  );
  // An index build on a large catalogue outlasts the statement timeout of the service's connections;
  // this connection goes back to the pool afterwards, so the setting is put back.
  await sql`set statement_timeout = 0`.execute(db);
  try {
    await buildIndexConcurrently(db, "mods_required_workshop_ids_idx", "mods using gin (required_workshop_ids)");
    await buildIndexConcurrently(
      db,
      "modpack_revisions_author_idx",
      "modpack_revisions (author_id) where author_id is not null",
    );
  } finally {
    await sql`reset statement_timeout`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop trigger if exists users_renamed on users;
    drop function if exists touch_modpacks_of_authors();
    drop index if exists modpack_revisions_author_idx;
    drop index if exists mods_required_workshop_ids_idx;
    drop trigger if exists mods_renamed on mods;
    drop trigger if exists mods_deleted on mods;
    drop trigger if exists mods_inserted on mods;
    drop function if exists touch_modpacks_requiring_renamed_mods(), touch_modpacks_requiring_old_mods(),
      touch_modpacks_requiring_new_mods();
    drop trigger if exists server_starts_deleted on server_starts;
    drop trigger if exists server_starts_inserted on server_starts;
  `,
  );
}
