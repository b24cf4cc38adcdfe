import { randomBytes } from "node:crypto";
import pg from "pg";

export interface TestDatabase {
  /** The connection string of this file's own database, or undefined for the embedded one. */
  url: string | undefined;
  /** Where the embedded database keeps its files (in memory for tests). */
  dataDir: string;
  drop(): Promise<void>;
}

/**
 * Gives a test file its own database: a fresh Postgres database created from `DATABASE_URL`
 * (and dropped afterwards) when that is set, otherwise an in-memory embedded database.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) return { url: undefined, dataDir: "memory://", drop: async () => {} };
  const name = `mcs_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir: "memory://",
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
