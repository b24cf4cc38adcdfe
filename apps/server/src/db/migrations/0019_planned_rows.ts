import type { Kysely } from "kysely";
import { executeScript } from "../script.js";

/**
 * `planned_rows(query, params)`: the rows the planner expects `query` to answer, read from its
 * `explain (format json)`, where `$1[n]` in `query` is `params[n]`. A search's page carries the
 * estimate of its matches in its own statement instead of a second statement sent after it: one
 * round trip. `explain` with the values bound plans them as the values themselves, as the
 * `explain` a client sends with parameters does, so the search text's statistics judge each word.
 * The query is only planned, never run. Parallel restricted: it runs in the leader alone (in the
 * page's init plan), and the rest of the page's statement may still be planned in parallel, which
 * a parallel unsafe function (plpgsql's default) would forbid.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await executeScript(
    db,
    `
    create or replace function planned_rows(query text, params text[]) returns bigint language plpgsql parallel restricted as $$
    declare
      plan json;
    begin
      execute 'explain (format json) ' || query into plan using params;
      return round((plan -> 0 -> 'Plan' ->> 'Plan Rows')::numeric);
    end
    $$;
    `,
  );
}
