import { sql } from "kysely";
import type { Runtime } from "../../src/runtime.js";

const TABLES = [
  "users",
  "modpacks",
  "modpack_members",
  "mods",
  "modpack_mods",
  "notifications",
  "imports",
  "exports",
  "export_configurations",
  "api_tokens",
  "sessions",
  "accounts",
] as const;

/** Row counts of every table, and checksums of the rows a request might rewrite in place. */
export async function snapshot(runtime: Runtime): Promise<Record<string, unknown>> {
  const counts = TABLES.map((table) => `(select count(*)::int from ${table}) as ${table}`).join(",\n");
  const checksum = (table: string, order: string) =>
    `(select md5(coalesce(string_agg(t::text, '|' order by ${order}), '')) from ${table} t) as ${table}_sum`;
  const query = `select ${counts},
    ${checksum("users", "t.id")},
    ${checksum("modpacks", "t.id")},
    ${checksum("modpack_members", "t.modpack_id, t.user_id")},
    ${checksum("modpack_mods", "t.id")},
    ${checksum("mods", "t.id")},
    ${checksum("export_configurations", "t.modpack_id")},
    ${checksum("notifications", "t.id")},
    ${checksum("imports", "t.id")},
    ${checksum("exports", "t.id")}`;
  const result = await sql.raw<Record<string, unknown>>(query).execute(runtime.database.db);
  return result.rows[0] ?? {};
}
