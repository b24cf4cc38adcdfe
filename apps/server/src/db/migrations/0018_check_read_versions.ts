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
 *   is not a member (the owner, a member who left) moved no version when renamed. The index finds
 *   the revisions an author made.
 *
 * 0008's functions for a changed mod and a changed user cover the new cases, so each table keeps
 * one trigger per event. Run outside a transaction (`transactional = false`), like 0012: the
 * indexes are built `concurrently`, so writes go on while they build, and every step can run again
 * after an interruption.
 */
export const transactional = false;

export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create or replace trigger server_starts_inserted after insert on server_starts
      referencing new table as new_rows for each statement execute function touch_modpacks_of_new_rows();
    create or replace trigger server_starts_deleted after delete on server_starts
      referencing old table as old_rows for each statement execute function touch_modpacks_of_old_rows();

    create or replace function touch_modpacks_of_mods() returns trigger language plpgsql as $$
    declare
      -- Workshop ids whose catalogue entry came, went, or changed its name or workshop id.
      entries text[];
    begin
      if tg_op = 'UPDATE' then
        update modpacks set version = version + 1
        where id in (
          select link.modpack_id
          from new_rows join old_rows on old_rows.id = new_rows.id
          join modpack_mods link on link.mod_id = new_rows.id
          where new_rows is distinct from old_rows
        );
        select array_agg(changed.workshop_id) into entries
        from new_rows join old_rows on old_rows.id = new_rows.id
        cross join lateral (values (new_rows.workshop_id), (old_rows.workshop_id)) as changed (workshop_id)
        where (new_rows.name, new_rows.workshop_id) is distinct from (old_rows.name, old_rows.workshop_id);
      elsif tg_op = 'INSERT' then
        select array_agg(workshop_id) into entries from new_rows;
      else
        select array_agg(workshop_id) into entries from old_rows;
      end if;
      if entries is not null then
        update modpacks set version = version + 1
        where id in (
          select link.modpack_id
          from modpack_mods link join mods requirer on requirer.id = link.mod_id
          where link.is_active and requirer.required_workshop_ids && entries
        );
      end if;
      return null;
    end
    $$;
    create or replace trigger mods_inserted after insert on mods
      referencing new table as new_rows for each statement execute function touch_modpacks_of_mods();
    create or replace trigger mods_deleted after delete on mods
      referencing old table as old_rows for each statement execute function touch_modpacks_of_mods();

    create or replace function touch_modpacks_of_users() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select member.modpack_id
        from new_rows join old_rows on old_rows.id = new_rows.id
        join modpack_members member on member.user_id = new_rows.id
        where (new_rows.name, new_rows.image) is distinct from (old_rows.name, old_rows.image)
        union
        select revision.modpack_id
        from new_rows join old_rows on old_rows.id = new_rows.id
        join modpack_revisions revision on revision.author_id = new_rows.id
        where new_rows.name is distinct from old_rows.name
      );
      return null;
    end
    $$;
    create or replace trigger users_updated after update on users
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_users();
    drop function if exists touch_modpacks_of_members();
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

/** Back to 0008's functions and triggers. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop index if exists modpack_revisions_author_idx;
    drop index if exists mods_required_workshop_ids_idx;

    create or replace function touch_modpacks_of_members() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select member.modpack_id
        from new_rows join old_rows on old_rows.id = new_rows.id
        join modpack_members member on member.user_id = new_rows.id
        where (new_rows.name, new_rows.image) is distinct from (old_rows.name, old_rows.image)
      );
      return null;
    end
    $$;
    create or replace trigger users_updated after update on users
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_members();
    drop function if exists touch_modpacks_of_users();

    drop trigger if exists mods_deleted on mods;
    drop trigger if exists mods_inserted on mods;
    create or replace function touch_modpacks_of_mods() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select link.modpack_id
        from new_rows join old_rows on old_rows.id = new_rows.id
        join modpack_mods link on link.mod_id = new_rows.id
        where new_rows is distinct from old_rows
      );
      return null;
    end
    $$;

    drop trigger if exists server_starts_deleted on server_starts;
    drop trigger if exists server_starts_inserted on server_starts;
  `,
  );
}
