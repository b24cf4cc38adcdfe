import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { CamelCasePlugin, type DatabaseConnection, type Driver, Kysely, PGliteDialect, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";

export type Db = Kysely<Database>;

export type DatabaseHandle =
  | { kind: "postgres"; db: Db; pool: pg.Pool; connectionString: string; close(): Promise<void> }
  | { kind: "pglite"; db: Db; pglite: PGlite; close(): Promise<void> };

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  poolSize?: number | undefined;
}

// Return timestamps as Date and bigint counts as numbers (counts never exceed 2^53 here).
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

/**
 * Opens the service's database: a pooled Postgres when a URL is given, otherwise the
 * embedded PGlite keeping its files in `dataDir` (`memory://` keeps them in memory).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const plugins = [new CamelCasePlugin()];
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
    });
    // An idle client that loses its server (restart, pg_terminate_backend) is dropped, not fatal.
    pool.on("error", () => {});
    // A checked-out client has no listener of the pool's: losing its server there (Kysely holds it
    // for a query or a transaction) emitted an unhandled 'error' and crashed the process. The query
    // in flight still fails (503), and the pool drops the client when it is released.
    pool.on("connect", (client) => {
      client.on("error", () => {});
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins });
    return {
      kind: "postgres",
      db,
      pool,
      connectionString: options.databaseUrl,
      close: () => db.destroy(),
    };
  }
  const dataDir = options.dataDir ?? ".data";
  if (!dataDir.startsWith("memory://")) await mkdir(dataDir, { recursive: true });
  // pg_trgm backs the search indexes of migration 0002.
  const pglite = await PGlite.create(dataDir, { extensions: { pg_trgm } });
  const db = new Kysely<Database>({ dialect: new SerialPGliteDialect({ pglite }), plugins });
  return {
    kind: "pglite",
    db,
    pglite,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/**
 * PGlite has one connection. Kysely's PGlite driver hands that connection to every caller at
 * once, so a query from one request could run inside another request's open transaction.
 * This dialect makes the connection a pool of one: a caller waits until the previous one has
 * released it, exactly as it would on a Postgres pool of size 1.
 */
class SerialPGliteDialect extends PGliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    let tail: Promise<void> = Promise.resolve();
    const releases = new WeakMap<DatabaseConnection, () => void>();
    const serial: Driver = {
      init: (options) => driver.init(options),
      acquireConnection: async (options) => {
        const previous = tail;
        let release!: () => void;
        tail = new Promise<void>((resolve) => {
          release = resolve;
        });
        await previous;
        const connection = await driver.acquireConnection(options);
        releases.set(connection, release);
        return connection;
      },
      releaseConnection: async (connection, options) => {
        await driver.releaseConnection(connection, options);
        const release = releases.get(connection);
        releases.delete(connection);
        release?.();
      },
      beginTransaction: driver.beginTransaction.bind(driver),
      commitTransaction: driver.commitTransaction.bind(driver),
      rollbackTransaction: driver.rollbackTransaction.bind(driver),
      destroy: () => driver.destroy(),
    };
    if (driver.savepoint) serial.savepoint = driver.savepoint.bind(driver);
    if (driver.rollbackToSavepoint) serial.rollbackToSavepoint = driver.rollbackToSavepoint.bind(driver);
    if (driver.releaseSavepoint) serial.releaseSavepoint = driver.releaseSavepoint.bind(driver);
    return serial;
  }
}
