import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * Invitations to a modpack by email: adding a member by email stores one (whether or not the
 * address belongs to a user, so the answer reveals nothing), and a sign-in with that verified
 * email turns it into a membership.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create table modpack_invitations (
      modpack_id uuid not null references modpacks (id) on delete cascade,
      email text not null check (email = lower(email)),
      permission text[] not null,
      invited_by uuid not null references users (id) on delete cascade,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (modpack_id, email)
    );
    create index modpack_invitations_email_idx on modpack_invitations (email);
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(db, "drop table modpack_invitations;");
}
