import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Trigram indexes for the case-insensitive substring searches (`ilike '%word%'`) on modpack names
 * and descriptions and on the mod catalogue's name, description and workshop id. Without them
 * every search reads the whole table. Needs the pg_trgm extension: created when the server offers
 * it and the role may create it (it is a trusted extension); otherwise the indexes are skipped and
 * searches keep working, only slower. The embedded database loads pg_trgm (see database.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    do $$
    begin
      if exists (select 1 from pg_available_extensions where name = 'pg_trgm') then
        begin
          create extension if not exists pg_trgm;
        exception when insufficient_privilege then
          raise notice 'pg_trgm could not be created (%); search indexes skipped', sqlerrm;
        end;
      end if;
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index modpacks_name_trgm_idx on modpacks using gin (name gin_trgm_ops);
        create index modpacks_description_trgm_idx on modpacks using gin (description gin_trgm_ops);
        create index mods_name_trgm_idx on mods using gin (name gin_trgm_ops);
        create index mods_description_trgm_idx on mods using gin (description gin_trgm_ops);
        create index mods_workshop_id_trgm_idx on mods using gin (workshop_id gin_trgm_ops);
      end if;
    end
    $$;
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop index if exists modpacks_name_trgm_idx, modpacks_description_trgm_idx, mods_name_trgm_idx,
      mods_description_trgm_idx, mods_workshop_id_trgm_idx;
  `,
  );
}
