import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Read versions, the validators of HTTP caching: `modpacks.version` moves whenever anything a
 * modpack read answers changes (the modpack's row, its members and their names and pictures, its
 * mod links, the catalogue rows of its mods, its export configuration), and `mods.version`
 * whenever a catalogue row changes. Triggers keep them, so no writer can forget: a row trigger on
 * the two tables themselves, statement triggers (one update per statement, however many rows) on
 * the tables whose rows show in a modpack's answers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    alter table modpacks add column version bigint not null default 1;
    alter table mods add column version bigint not null default 1;

    create function next_read_version() returns trigger language plpgsql as $$
    begin
      if new is distinct from old then
        new.version := old.version + 1;
      end if;
      return new;
    end
    $$;
    create trigger modpacks_read_version before update on modpacks
      for each row execute function next_read_version();
    create trigger mods_read_version before update on mods
      for each row execute function next_read_version();

    create function touch_modpacks_of_new_rows() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (select distinct modpack_id from new_rows);
      return null;
    end
    $$;
    create function touch_modpacks_of_old_rows() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (select distinct modpack_id from old_rows);
      return null;
    end
    $$;
    create function touch_modpacks_of_changed_rows() returns trigger language plpgsql as $$
    begin
      update modpacks set version = version + 1
      where id in (
        select new_rows.modpack_id from new_rows
        union
        select old_rows.modpack_id from old_rows
      );
      return null;
    end
    $$;

    create trigger modpack_members_inserted after insert on modpack_members
      referencing new table as new_rows for each statement execute function touch_modpacks_of_new_rows();
    create trigger modpack_members_updated after update on modpack_members
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_changed_rows();
    create trigger modpack_members_deleted after delete on modpack_members
      referencing old table as old_rows for each statement execute function touch_modpacks_of_old_rows();

    create trigger modpack_mods_inserted after insert on modpack_mods
      referencing new table as new_rows for each statement execute function touch_modpacks_of_new_rows();
    create trigger modpack_mods_updated after update on modpack_mods
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_changed_rows();
    create trigger modpack_mods_deleted after delete on modpack_mods
      referencing old table as old_rows for each statement execute function touch_modpacks_of_old_rows();

    create trigger export_configurations_inserted after insert on export_configurations
      referencing new table as new_rows for each statement execute function touch_modpacks_of_new_rows();
    create trigger export_configurations_updated after update on export_configurations
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_changed_rows();
    create trigger export_configurations_deleted after delete on export_configurations
      referencing old table as old_rows for each statement execute function touch_modpacks_of_old_rows();

    create function touch_modpacks_of_mods() returns trigger language plpgsql as $$
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
    create trigger mods_updated after update on mods
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_mods();

    create function touch_modpacks_of_members() returns trigger language plpgsql as $$
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
    create trigger users_updated after update on users
      referencing old table as old_rows new table as new_rows
      for each statement execute function touch_modpacks_of_members();
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop trigger users_updated on users;
    drop trigger mods_updated on mods;
    drop trigger export_configurations_deleted on export_configurations;
    drop trigger export_configurations_updated on export_configurations;
    drop trigger export_configurations_inserted on export_configurations;
    drop trigger modpack_mods_deleted on modpack_mods;
    drop trigger modpack_mods_updated on modpack_mods;
    drop trigger modpack_mods_inserted on modpack_mods;
    drop trigger modpack_members_deleted on modpack_members;
    drop trigger modpack_members_updated on modpack_members;
    drop trigger modpack_members_inserted on modpack_members;
    drop trigger mods_read_version on mods;
    drop trigger modpacks_read_version on modpacks;
    drop function touch_modpacks_of_members(), touch_modpacks_of_mods(), touch_modpacks_of_changed_rows(),
      touch_modpacks_of_old_rows(), touch_modpacks_of_new_rows(), next_read_version();
    alter table mods drop column version;
    alter table modpacks drop column version;
  `,
  );
}
