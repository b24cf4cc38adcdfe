import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * A modpack's links carry copies of what their lists sort and filter by: `mod_name` (the mod's
 * name) and `mod_tags` (its tags). Sorting a 5,000-mod modpack by name, or filtering it by tag, then
 * reads the modpack's own index entries and rows instead of 5,000 catalogue rows sorted in memory.
 *
 * Triggers keep the copies, so no writer can forget:
 *  - a link inserted, or made active again, takes its mod's current name and tags (reading the mod
 *    row `for share`, so a concurrent rename either waits for the link to commit and then updates
 *    it, or commits first and is the one read);
 *  - a mod whose name or tags change (only then) updates its active links. Inactive links are
 *    brought up to date when they come back.
 * The copies are not part of any answer, so the backfill does not move the modpacks' read versions
 * (0008): the links' update trigger is off while it runs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    set local statement_timeout = 0;
    alter table modpack_mods add column mod_name text, add column mod_tags text[];

    alter table modpack_mods disable trigger modpack_mods_updated;
    update modpack_mods link set mod_name = mods.name, mod_tags = mods.tags
      from mods where mods.id = link.mod_id;
    alter table modpack_mods enable trigger modpack_mods_updated;
    alter table modpack_mods alter column mod_name set not null, alter column mod_tags set not null;

    create function copy_mod_to_link() returns trigger language plpgsql as $$
    begin
      select mods.name, mods.tags into new.mod_name, new.mod_tags
      from mods where mods.id = new.mod_id for share;
      if not found then
        -- No such mod: the foreign key refuses the row with its own error.
        new.mod_name := coalesce(new.mod_name, '');
        new.mod_tags := coalesce(new.mod_tags, '{}');
      end if;
      return new;
    end
    $$;
    create trigger modpack_mods_copy_inserted before insert on modpack_mods
      for each row execute function copy_mod_to_link();
    create trigger modpack_mods_copy_reactivated before update of is_active, mod_id on modpack_mods
      for each row when (new.is_active and (not old.is_active or new.mod_id <> old.mod_id))
      execute function copy_mod_to_link();

    create function copy_mod_to_links() returns trigger language plpgsql as $$
    begin
      update modpack_mods set mod_name = new.name, mod_tags = new.tags
      where mod_id = new.id and is_active;
      return null;
    end
    $$;
    create trigger mods_copy_to_links after update of name, tags on mods
      for each row when (old.name is distinct from new.name or old.tags is distinct from new.tags)
      execute function copy_mod_to_links();

    create index modpack_mods_pack_names_idx on modpack_mods (modpack_id, mod_name, id) include (mod_id)
      where is_active;
    analyze modpack_mods;
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop index modpack_mods_pack_names_idx;
    drop trigger mods_copy_to_links on mods;
    drop trigger modpack_mods_copy_reactivated on modpack_mods;
    drop trigger modpack_mods_copy_inserted on modpack_mods;
    drop function copy_mod_to_links(), copy_mod_to_link();
    alter table modpack_mods drop column mod_name, drop column mod_tags;
  `,
  );
}
