import { type Kysely, sql } from "kysely";
import { buildIndexConcurrently, executeScript } from "../script.js";

/**
 * Search reads one stored, normalised text per row, `search_text`, with a trigram index on it.
 *
 * Why a stored column, and not the trigram indexes on the raw columns of 0002 and the page cost of
 * 0010: matching is the expensive part, not reading pages. `ilike` lower-cases every row it tests,
 * and ignoring accents means `unaccent` as well, several microseconds for a description; the
 * planner charges an operator the same small cost whatever text it reads, so it priced a scan of
 * every row (each one lower-cased, twice) far below what it costs, and a lower `random_page_cost`
 * could not change that. Normalising once, when a row is written, leaves a plain `like` on
 * lower-case text for every search, cheap to recheck after the index, and an index a query can
 * use whatever the words are (at least three characters each: a trigram).
 *
 *  - `search_normalize(text)`: lower case, accents removed (`unaccent`, when the server offers the
 *    extension; lower case alone otherwise). Immutable, as an index and a stored value need: the
 *    unaccent rules are read from the extension's own dictionary, named with its schema.
 *  - mods: name, description and workshop id; modpacks: name and description; one line each, so
 *    a word never spans two of them. Kept by a trigger on the columns it is made of, so no writer
 *    can forget.
 *  - The trigram indexes of 0002 on the raw columns are dropped: nothing reads them any more, and
 *    every write paid for them.
 *
 * Run outside a transaction (`transactional = false`, see db/migrate.ts), so that no lock is held
 * for long on a large catalogue: the column comes without a default (no table rewrite), the
 * trigger is created in a statement of its own, the existing rows are filled in batches of a few
 * thousand (each a short transaction that turns the tables' other triggers off for itself: the
 * text is not part of any answer, so read versions and links stay as they are), and the indexes are
 * built `concurrently`: writes go on while they build. Every step can run again, so a migration
 * interrupted half-way completes on the next start.
 */
export const transactional = false;

const BATCH = 5_000;

export async function up(db: Kysely<unknown>): Promise<void> {
  // Index builds on a large table outlast the statement timeout of the service's connections; this
  // connection goes back to the pool afterwards, so the setting is put back.
  await sql`set statement_timeout = 0`.execute(db);
  try {
    await executeScript(
      db,
      `
      do $$
      declare
        schema_name text;
      begin
        if exists (select 1 from pg_available_extensions where name = 'unaccent') then
          begin
            create extension if not exists unaccent;
          exception when insufficient_privilege then
            raise notice 'unaccent could not be created (%); search ignores case but not accents', sqlerrm;
          end;
        end if;
        select namespace.nspname into schema_name
        from pg_extension extension join pg_namespace namespace on namespace.oid = extension.extnamespace
        where extension.extname = 'unaccent';
        if schema_name is not null then
          execute format(
            'create or replace function search_normalize(value text) returns text language sql immutable parallel safe strict
               as %L',
            format('select lower(%I.unaccent(%L::regdictionary, value))', schema_name, quote_ident(schema_name) || '.unaccent'));
        else
          create or replace function search_normalize(value text) returns text language sql immutable parallel safe strict
            as 'select lower(value)';
        end if;
      end
      $$;

      alter table mods add column if not exists search_text text;
      alter table modpacks add column if not exists search_text text;

      create or replace function mods_search_text() returns trigger language plpgsql as $$
      begin
        new.search_text := search_normalize(new.name) || E'\\n' || search_normalize(new.description) || E'\\n' || new.workshop_id;
        return new;
      end
      $$;
      create or replace function modpacks_search_text() returns trigger language plpgsql as $$
      begin
        new.search_text := search_normalize(new.name) || E'\\n' || coalesce(search_normalize(new.description), '');
        return new;
      end
      $$;
      drop trigger if exists mods_search_text on mods;
      create trigger mods_search_text before insert or update of name, description, workshop_id on mods
        for each row execute function mods_search_text();
      drop trigger if exists modpacks_search_text on modpacks;
      create trigger modpacks_search_text before insert or update of name, description on modpacks
        for each row execute function modpacks_search_text();
    `,
    );

    await fill(
      db,
      "mods",
      `search_normalize(name) || E'\\n' || search_normalize(description) || E'\\n' || workshop_id`,
    );
    await fill(db, "modpacks", `search_normalize(name) || E'\\n' || coalesce(search_normalize(description), '')`);

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
      end
      $$;
    `,
    );
    const trigram = await sql<{ present: boolean }>`
      select exists (select 1 from pg_extension where extname = 'pg_trgm') as present
    `.execute(db);
    if (trigram.rows[0]?.present) {
      await buildIndexConcurrently(db, "mods_search_text_idx", "mods using gin (search_text gin_trgm_ops)");
      await buildIndexConcurrently(db, "modpacks_search_text_idx", "modpacks using gin (search_text gin_trgm_ops)");
    }
    for (const index of [
      "mods_name_trgm_idx",
      "mods_description_trgm_idx",
      "mods_workshop_id_trgm_idx",
      "modpacks_name_trgm_idx",
      "modpacks_description_trgm_idx",
    ]) {
      await sql`drop index concurrently if exists ${sql.id(index)}`.execute(db);
    }
    // The fill left an old version of every row, and entries for the new ones in the pending lists
    // of the tables' other GIN indexes (the in-game ids, the tags), which every search through
    // those indexes then reads one by one until a vacuum merges them; autovacuum may be off or
    // late. Vacuum takes no lock that stops writes.
    await sql`vacuum (analyze) mods`.execute(db);
    await sql`vacuum (analyze) modpacks`.execute(db);
  } finally {
    await sql`reset statement_timeout`.execute(db);
  }
}

/**
 * Fills `search_text` of the rows that have none, a batch per transaction. The table's other
 * triggers are off within each batch only: the read versions (0008) and the links' copies (0011)
 * do not depend on the text, and writers wait at most one batch for the lock that turns them off.
 */
async function fill(db: Kysely<unknown>, table: "mods" | "modpacks", text: string): Promise<void> {
  for (;;) {
    const updated = await db.transaction().execute(async (trx) => {
      await sql.raw(`alter table ${table} disable trigger user`).execute(trx);
      const result = await sql
        .raw(
          `update ${table} set search_text = ${text}
           where id in (select id from ${table} where search_text is null limit ${BATCH})`,
        )
        .execute(trx);
      await sql.raw(`alter table ${table} enable trigger user`).execute(trx);
      return Number(result.numAffectedRows ?? 0);
    });
    if (updated === 0) return;
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop index if exists mods_search_text_idx, modpacks_search_text_idx;
    drop trigger if exists mods_search_text on mods;
    drop trigger if exists modpacks_search_text on modpacks;
    drop function if exists mods_search_text(), modpacks_search_text();
    alter table mods drop column if exists search_text;
    alter table modpacks drop column if exists search_text;
    drop function if exists search_normalize(text);
    do $$
    begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index if not exists modpacks_name_trgm_idx on modpacks using gin (name gin_trgm_ops);
        create index if not exists modpacks_description_trgm_idx on modpacks using gin (description gin_trgm_ops);
        create index if not exists mods_name_trgm_idx on mods using gin (name gin_trgm_ops);
        create index if not exists mods_description_trgm_idx on mods using gin (description gin_trgm_ops);
        create index if not exists mods_workshop_id_trgm_idx on mods using gin (workshop_id gin_trgm_ops);
      end if;
    end
    $$;
  `,
  );
}
