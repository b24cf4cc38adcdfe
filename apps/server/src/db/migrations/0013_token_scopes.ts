import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * API tokens carry what they may do: `scopes` (`read`, `write`) and, optionally, the modpacks they
 * are limited to (null: no limit). Tokens made before this migration keep both scopes and no limit.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    alter table api_tokens add column scopes text[] not null default array['read', 'write']::text[];
    alter table api_tokens add column modpack_ids uuid[];
    alter table api_tokens add constraint api_tokens_scopes_check
      check (scopes <@ array['read', 'write']::text[] and 'read' = any (scopes));
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    alter table api_tokens drop constraint api_tokens_scopes_check;
    alter table api_tokens drop column modpack_ids;
    alter table api_tokens drop column scopes;
  `,
  );
}
