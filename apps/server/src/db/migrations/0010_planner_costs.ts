import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * The planner's cost of a random page read for the service's database: 1.1 instead of the default
 * 4, which assumes spinning disks and a cold cache. With 4, a substring search of the catalogue
 * (`ilike '%word%'` over name, description, workshop id and in-game ids) is planned as a scan of
 * every row whenever a few percent may match, and matching every description row by row costs far
 * more than reading the trigram indexes, which are used at 1.1. Applies to new connections. Skipped, with a notice, when the
 * role may not change the database's settings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    do $$
    begin
      execute format('alter database %I set random_page_cost = 1.1', current_database());
    exception when insufficient_privilege then
      raise notice 'random_page_cost not set for this database (%)', sqlerrm;
    end
    $$;
  `,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    do $$
    begin
      execute format('alter database %I reset random_page_cost', current_database());
    exception when insufficient_privilege then
      raise notice 'random_page_cost not reset for this database (%)', sqlerrm;
    end
    $$;
  `,
  );
}
