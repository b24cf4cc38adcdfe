import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/** The modpack check's errors and warnings an export was generated with (the ones its file's header lists). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(db, `alter table exports add column findings jsonb not null default '[]'::jsonb;`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(db, `alter table exports drop column findings;`);
}
