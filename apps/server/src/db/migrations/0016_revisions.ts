import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * A modpack's history: numbered revisions of the state that goes into its server file.
 *
 * `modpack_revisions` holds one row per revision (who, why, what changed, in counts).
 * `modpack_revision_mods` holds the mods' entries as ranges of revisions: an entry holds from
 * `first_number` up to, not including, `until_number` (null: the newest revision still holds it).
 * Numbers are given under a lock of the modpack's row, and `created_at` is the time of the insert
 * (not of the transaction's start), so the newer number is always the later time: the list pages by
 * `(created_at, id)` like every other list. A revision that changes one mod closes that mod's entry and opens one, and the load order is a
 * sort key per entry that changes only for the mods that moved, so the rows stored grow with what
 * changed, not with the modpack's size. `modpacks.revision` is the newest number (0: none yet).
 *
 * `announced` is false while a revision waits for its `modpack.changed` event (revisions replace the
 * `modpack_changes` that the event's window read before). Packs that hold mods
 * when this runs are listed in `pending_initial_revisions`: the service records their first
 * revision (reason `initial`) right after migrating, with the code that records every other one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    alter table modpacks add column revision integer not null default 0;

    create table modpack_revisions (
      id uuid not null unique default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      number integer not null check (number > 0),
      reason text not null check (reason in
        ('initial', 'mods-added', 'mods-removed', 'configuration', 'import', 'restore', 'duplicate', 'workshop')),
      author_id uuid references users (id) on delete set null,
      added integer not null,
      removed integer not null,
      moved integer not null,
      selection_changed integer not null,
      announced boolean not null default true,
      created_at timestamptz not null default clock_timestamp(),
      primary key (modpack_id, number)
    );
    create index modpack_revisions_list_idx on modpack_revisions (modpack_id, created_at, id);
    create index modpack_revisions_unannounced_idx on modpack_revisions (modpack_id) where not announced;

    create table modpack_revision_mods (
      modpack_id uuid not null,
      mod_id uuid not null,
      first_number integer not null,
      until_number integer,
      sort_key text not null,
      workshop_id text not null,
      name text not null,
      selected text[],
      custom text[] not null,
      ids_b41 text[] not null,
      ids_b42 text[] not null,
      map_folders text[] not null,
      required_workshop_ids text[] not null,
      time_updated timestamptz,
      foreign key (modpack_id, first_number) references modpack_revisions (modpack_id, number) on delete cascade,
      check (until_number is null or until_number > first_number)
    );
    create index modpack_revision_mods_range_idx on modpack_revision_mods (modpack_id, first_number);
    create index modpack_revision_mods_open_idx on modpack_revision_mods (modpack_id, mod_id) where until_number is null;

    create table pending_initial_revisions (modpack_id uuid primary key references modpacks (id) on delete cascade);
    insert into pending_initial_revisions (modpack_id)
      select distinct modpack_id from modpack_mods where is_active;

    drop table modpack_changes;
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create table modpack_changes (
      id uuid primary key default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      kind text not null check (kind in ('mod-added', 'mod-removed', 'load-order')),
      mod_id uuid references mods (id) on delete set null,
      by_user_id uuid not null references users (id) on delete cascade,
      created_at timestamptz not null default now()
    );
    create index modpack_changes_modpack_idx on modpack_changes (modpack_id, created_at);
    drop table pending_initial_revisions;
    drop table modpack_revision_mods;
    drop table modpack_revisions;
    alter table modpacks drop column revision;
  `,
  );
}
