import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Invitations expire: each carries the moment it stops being claimable (set from the configured
 * number of days when it is made or renewed). Invitations made before this migration expire 14
 * days after their last change. Expired ones are never claimed and are purged by the maintenance job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    alter table modpack_invitations add column expires_at timestamptz;
    update modpack_invitations set expires_at = updated_at + interval '14 days';
    alter table modpack_invitations alter column expires_at set not null;
    create index modpack_invitations_expires_at_idx on modpack_invitations (expires_at);
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    drop index modpack_invitations_expires_at_idx;
    alter table modpack_invitations drop column expires_at;
  `,
  );
}
