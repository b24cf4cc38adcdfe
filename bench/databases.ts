/** The benchmarks' own databases: created beside the admin connection's, and dropped after. */
import pg from "pg";

/** The connection string of database `name` on the admin connection's server. */
export function databaseUrlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * Creates database `name` (a copy of database `template` when given: nobody may be connected to
 * it) and answers its connection string.
 */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  await asAdmin(adminUrl, `create database ${name}${template ? ` template ${template}` : ""}`);
  return databaseUrlOf(adminUrl, name);
}

/** Drops database `name`, closing the connections still on it. */
export function dropDatabase(adminUrl: string, name: string): Promise<void> {
  return asAdmin(adminUrl, `drop database if exists ${name} with (force)`);
}
