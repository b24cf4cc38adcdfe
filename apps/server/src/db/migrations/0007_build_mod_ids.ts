import { type Kysely, sql } from "kysely";

/**
 * Per-build in-game ids: `mod_ids_b41` and `mod_ids_b42` hold the ids a mod names for Build 41 and
 * Build 42 (null: the description qualifies none, so `platform_mod_ids` serve both builds).
 *
 * `parser_version` records which version of the description parser produced a row's ids. Rows
 * stored before this migration get 0; the catalogue re-parse job parses every row older than the
 * running parser again from its stored description, so a migration never runs parsing code whose
 * rules change after it lands. New rows default to 1, the parser version this migration shipped
 * with; the service writes the running version explicitly.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table mods
      add column mod_ids_b41 text[],
      add column mod_ids_b42 text[],
      add column parser_version integer not null default 0
  `.execute(db);
  await sql`alter table mods alter column parser_version set default 1`.execute(db);
  await sql`create index mods_parser_version_idx on mods (parser_version, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index mods_parser_version_idx`.execute(db);
  await sql`alter table mods drop column mod_ids_b41, drop column mod_ids_b42, drop column parser_version`.execute(db);
}
