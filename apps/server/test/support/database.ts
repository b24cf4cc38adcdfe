import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

export interface TestDatabase {
  /** The connection string of this file's own database, or undefined for the embedded one. */
  url: string | undefined;
  /** Where the embedded database keeps its files: in memory unless the test gave a directory. */
  dataDir: string;
  /** The tarball the embedded database starts from, or undefined for an empty one. */
  template: string | undefined;
  drop(): Promise<void>;
}

/** Runs one statement on its own connection to `adminUrl` (creating and dropping databases). */
export async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** `adminUrl` naming the database `name` instead. */
export function databaseUrlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Gives a test file its own database: a fresh Postgres database created from `DATABASE_URL`
 * (and dropped afterwards) when that is set, otherwise an embedded database in memory (or in
 * `dataDir`, a directory the test made and removes). Each is a copy of the run's migrated database
 * (test/support/global-setup.ts) unless `empty` asks for one the service's start has not touched;
 * outside a test run (the load test) only an empty one exists.
 */
export async function createTestDatabase(options: { empty?: boolean; dataDir?: string } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const template = options.empty ? undefined : inject("embeddedTemplate");
    return { url: undefined, dataDir: options.dataDir ?? "memory://", template, drop: async () => {} };
  }
  const name = `mcs_test_${randomBytes(6).toString("hex")}`;
  const template = options.empty ? undefined : inject("postgresTemplate");
  await asAdmin(adminUrl, `create database ${name}${template ? ` template ${template}` : ""}`);
  return {
    url: databaseUrlOf(adminUrl, name),
    dataDir: "memory://",
    template: undefined,
    drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`),
  };
}
