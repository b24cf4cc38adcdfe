import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Changes to a modpack's mods and load order waiting for their `modpack.changed` event: the first
 * change opens a window, and the event sent when it closes reports every change made in it. Only
 * modpacks with a webhook for the event record them; sending the event deletes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
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
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(db, "drop table modpack_changes;");
}
