import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { lockModsInOrder } from "../db/lock-order.js";
import { keepWholeSelections, recordCatalogueRevisions } from "../db/modpack-revisions.js";
import { PARSER_VERSION, parseDescription } from "../workshop/description.js";
import type { JobDefinition } from "./boss.js";

export const REPARSE_QUEUE = "mods.reparse";

const BATCH = 500;

/**
 * Parses one batch of catalogue rows that an older parser version produced, from their stored
 * descriptions, and answers how many rows it read (0 when none are left). A row whose description
 * names no id keeps its ids (for both builds). The update skips a row a refresh rewrote meanwhile:
 * a refresh writes the running parser version.
 */
export async function reparseBatch(db: Db): Promise<{ read: number; changed: number }> {
  const rows = await db
    .selectFrom("mods")
    .select(["id", "workshopId", "description", "platformModIds", "mapFolders"])
    .where("parserVersion", "<", PARSER_VERSION)
    .orderBy("parserVersion")
    .orderBy("id")
    .limit(BATCH)
    .execute();
  if (rows.length === 0) return { read: 0, changed: 0 };
  const ids = rows.map((row) => row.id);
  const parsed = rows.map((row) => {
    const result = parseDescription(row.description, row.workshopId);
    const named = result.platformModIds.length > 0;
    return {
      id: row.id,
      all: named ? result.platformModIds : row.platformModIds,
      b41: named ? result.buildModIds["41x"] : null,
      b42: named ? result.buildModIds["42x"] : null,
      maps: named ? result.mapFolders : row.mapFolders,
    };
  });
  const updated = await sql<{ id: string }>`
    update mods set
      platform_mod_ids = array(select jsonb_array_elements_text(p.value -> 'all')),
      mod_ids_b41 = case when p.value -> 'b41' = 'null'::jsonb then null
                         else array(select jsonb_array_elements_text(p.value -> 'b41')) end,
      mod_ids_b42 = case when p.value -> 'b42' = 'null'::jsonb then null
                         else array(select jsonb_array_elements_text(p.value -> 'b42')) end,
      map_folders = array(select jsonb_array_elements_text(p.value -> 'maps')),
      parser_version = ${PARSER_VERSION},
      updated_at = now()
    from jsonb_array_elements(${JSON.stringify(parsed)}::jsonb) as p(value)
    where mods.id = (p.value ->> 'id')::uuid and mods.parser_version < ${PARSER_VERSION}
      and mods.id in (${lockModsInOrder(db, ids)})
    returning mods.id
  `.execute(db);
  const before = new Map(rows.map((row) => [row.id, row.platformModIds]));
  const after = new Map(parsed.map((row) => [row.id, row.all]));
  const changedIds = updated.rows.map((row) => row.id);
  await keepWholeSelections(
    db,
    changedIds.map((modId) => ({ modId, before: before.get(modId) ?? [], after: after.get(modId) ?? [] })),
  );
  await recordCatalogueRevisions(db, changedIds);
  return { read: rows.length, changed: updated.rows.length };
}

/**
 * Brings the catalogue up to the running description parser: sent at every start (a no-op when no
 * row is older) and hourly, it parses older rows again in batches until none are left.
 */
export function reparseJob(db: Db): JobDefinition {
  return {
    queue: REPARSE_QUEUE,
    options: { retryLimit: 2, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
    schedule: { cron: "41 * * * *" },
    atStart: true,
    async handle() {
      let read = 0;
      let changed = 0;
      for (;;) {
        const batch = await reparseBatch(db);
        if (batch.read === 0) break;
        read += batch.read;
        changed += batch.changed;
      }
      return { read, changed, parserVersion: PARSER_VERSION };
    },
  };
}
