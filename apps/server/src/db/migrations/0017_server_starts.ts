import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Start reports: what a server's own log said when it started with a revision of a modpack's file.
 * Only what was found is kept (the mods loaded, the findings, the outcome), never the log. The
 * newest revision whose latest report for a game version says `started` is kept on the modpack
 * (`last_good_b41`, `last_good_b42`), so its reads need no look at the reports. Tokens gain the
 * `report` scope.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create table server_starts (
      id uuid primary key default uuid_v7(),
      modpack_id uuid not null references modpacks (id) on delete cascade,
      revision integer not null check (revision >= 0),
      version text not null check (version in ('41x', '42x')),
      outcome text not null check (outcome in ('started', 'failed', 'incomplete')),
      mods_loaded text[] not null,
      findings jsonb not null,
      reported_by uuid references users (id) on delete set null,
      created_at timestamptz not null default clock_timestamp()
    );
    create index server_starts_list_idx on server_starts (modpack_id, created_at, id);
    create index server_starts_latest_idx on server_starts (modpack_id, version, revision, created_at);

    alter table modpacks add column last_good_b41 integer;
    alter table modpacks add column last_good_b42 integer;

    alter table api_tokens drop constraint api_tokens_scopes_check;
    alter table api_tokens add constraint api_tokens_scopes_check
      check (scopes <@ array['read', 'write', 'report']::text[] and 'read' = any (scopes));
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    delete from api_tokens where 'report' = any (scopes);
    alter table api_tokens drop constraint api_tokens_scopes_check;
    alter table api_tokens add constraint api_tokens_scopes_check
      check (scopes <@ array['read', 'write']::text[] and 'read' = any (scopes));
    alter table modpacks drop column last_good_b42;
    alter table modpacks drop column last_good_b41;
    drop table server_starts;
  `,
  );
}
