import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Indexes for the lists at ten times real size:
 *  - a modpack's links with the mod id included, in load order: listing, sorting and counting a
 *    modpack's mods reads only the modpack's own index entries (replaces modpack_mods_order_idx);
 *  - the catalogue by `updated_at` (the `updatedAt` sort, and the newest change the tag cache
 *    checks);
 *  - trigram indexes on user names and emails for the admin search (when pg_trgm is there, as in
 *    0002).
 * Index builds on a large table outlast any statement timeout the service's connections carry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    set local statement_timeout = 0;
    create index modpack_mods_pack_rows_idx on modpack_mods (modpack_id, added_at, id) include (mod_id) where is_active;
    drop index if exists modpack_mods_order_idx;
    create index mods_updated_at_idx on mods (updated_at desc, id desc);
    do $$
    begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index users_name_trgm_idx on users using gin (name gin_trgm_ops);
        create index users_email_trgm_idx on users using gin (email gin_trgm_ops);
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
    create index if not exists modpack_mods_order_idx on modpack_mods (modpack_id, added_at, id) where is_active;
    drop index if exists modpack_mods_pack_rows_idx, mods_updated_at_idx, users_name_trgm_idx, users_email_trgm_idx;
  `,
  );
}
