import { type Kysely, sql } from "kysely";
import { parseDescription } from "../../workshop/description.js";

const BATCH = 1000;

/**
 * Per-build in-game ids: `mod_ids_b41` and `mod_ids_b42` hold the ids a mod names for Build 41 and
 * Build 42 (ids its description does not qualify belong to both). Every catalogue row is parsed
 * again from its stored description, so mods whose build-qualified labels gave no ids before get
 * them now; a row whose description names no id keeps the ids it has, for both builds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table mods add column mod_ids_b41 text[], add column mod_ids_b42 text[]`.execute(db);
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const { rows } = await sql<{ id: string; workshop_id: string; description: string }>`
      select id, workshop_id, description from mods where id > ${after}::uuid order by id limit ${BATCH}
    `.execute(db);
    const last = rows.at(-1);
    if (!last) break;
    after = last.id;
    const parsed = rows.flatMap((row) => {
      const result = parseDescription(row.description, row.workshop_id);
      if (result.platformModIds.length === 0) return [];
      return [
        {
          id: row.id,
          all: result.platformModIds,
          b41: result.buildModIds["41x"],
          b42: result.buildModIds["42x"],
          maps: result.mapFolders,
        },
      ];
    });
    if (parsed.length === 0) continue;
    await sql`
      update mods set
        platform_mod_ids = array(select jsonb_array_elements_text(p.value -> 'all')),
        mod_ids_b41 = array(select jsonb_array_elements_text(p.value -> 'b41')),
        mod_ids_b42 = array(select jsonb_array_elements_text(p.value -> 'b42')),
        map_folders = array(select jsonb_array_elements_text(p.value -> 'maps'))
      from jsonb_array_elements(${JSON.stringify(parsed)}::jsonb) as p(value)
      where mods.id = (p.value ->> 'id')::uuid
    `.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table mods drop column mod_ids_b41, drop column mod_ids_b42`.execute(db);
}
