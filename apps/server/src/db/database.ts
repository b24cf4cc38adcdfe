import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import {
  CamelCasePlugin,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  PGliteDialect,
  type PostgresCursor,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
} from "kysely";
import pg from "pg";
import { extract } from "tar";
import type { Database } from "./schema.js";

export type Db = Kysely<Database>;

export type DatabaseHandle =
  | { kind: "postgres"; db: Db; pool: pg.Pool; connectionString: string; close(): Promise<void> }
  | { kind: "pglite"; db: Db; pglite: PGlite; close(): Promise<void> };

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  poolSize?: number | undefined;
  /** Postgres: longest a statement may run before the server cancels it (0: no limit). */
  statementTimeoutMs?: number | undefined;
  /** Postgres: longest a query waits for a free pooled connection (or a new one to connect). */
  poolTimeoutMs?: number | undefined;
  /**
   * A gzipped tarball of an initialized, migrated embedded database (`pnpm build` makes one beside
   * the built server). A new `dataDir`, or one in memory, starts as a copy of it instead of running
   * initdb; a missing file is no error.
   */
  template?: string | undefined;
}

/** Another process holds the embedded database's directory. */
export class DatabaseInUseError extends Error {
  override name = "DatabaseInUseError";
}

/**
 * Postgres settings of the embedded database: it serves one process, so shared buffers far below
 * Postgres's default keep its memory small: PGlite touches all of them at start, so every buffer
 * stays in the process's resident memory; pages beyond them are read from the operating system's
 * file cache. The rest are PGlite's own defaults.
 */
const embeddedStartParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=8MB"];

// Bigint counts as numbers, as PGlite reads them (counts never exceed 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/** The most values a fixed read has. */
const FIXED_READ_VALUES = 16;

/**
 * A read of one fixed shape whose best plan does not depend on its values: no text search or array
 * filter (how many rows a word or a tag matches varies from a few to a third of the catalogue), and
 * few values (an `in` list of any length would be a statement per length).
 */
export const isFixedRead = (text: string, values: readonly unknown[]) =>
  values.length <= FIXED_READ_VALUES && text.startsWith("select ") && !/ i?like | && | @> /.test(text);

/**
 * The pool Kysely reads through: reads of a fixed shape run as named prepared statements (pg's
 * `{ name, text, values }` query config), so Postgres parses and plans each once per connection and
 * a call sends only its values. Writes, searches and statements with many values (an `in` list of
 * any length) stay unnamed. A text is named when it is first sent: the fixed reads are as many as
 * the code writes, so the names stay few, and a call looks its name up instead of hashing its text.
 */
export function withPreparedReads(pool: pg.Pool): PostgresPool {
  // Each select the code sends with few values, and its name (null: sent unnamed): a text is judged
  // once, and then looked up, where judging it reads the whole text.
  const names = new Map<string, string | null>();
  let named = 0;
  const nameOf = (text: string, values: readonly unknown[]) => {
    // Not a select (a write, a walk's `with`, an `explain`), or an `in` list of many values (as many
    // texts as its lengths): never kept.
    if (values.length > FIXED_READ_VALUES || !text.startsWith("select ")) return null;
    let name = names.get(text);
    if (name === undefined) {
      name = isFixedRead(text, values) ? `read_${++named}` : null;
      names.set(text, name);
    }
    return name;
  };
  // One wrapper per pooled client, for as long as the client lives: Kysely keeps its connection
  // object per client it is handed, so a new wrapper per checkout would make a new connection (and
  // an entry in Kysely's map) for every query.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = (text: string | PostgresCursor<unknown>, values: readonly unknown[] = []) => {
      // A cursor (Kysely's streams) is handed back as pg returns it.
      if (typeof text !== "string") return client.query(text as never);
      const name = nameOf(text, values);
      const config = name === null ? { text, values: [...values] } : { name, text, values: [...values] };
      // pg's callback form: through its promise form every result outlived the young generation's
      // collections, so the rows of each page were copied into the old generation and freed only by
      // full collections; through the callback they die young, as the baseline's do.
      return new Promise<pg.QueryResult>((resolve, reject) => {
        client.query(config, (error: Error | undefined, result: pg.QueryResult) =>
          error ? reject(error) : resolve(result),
        );
      });
    };
    return { query: query as unknown as PostgresPoolClient["query"], release: (destroy) => client.release(destroy) };
  };
  return {
    options: pool.options,
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/**
 * Opens the service's database: a pooled Postgres when a URL is given, otherwise the
 * embedded PGlite keeping its files in `dataDir` (`memory://` keeps them in memory).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  // Only column names are mapped: the keys inside a JSON value (a modpack's metadata) are the user's own.
  const plugins = [new CamelCasePlugin({ maintainNestedObjectKeys: true })];
  if (options.databaseUrl) {
    // One slow query never takes the others down: each statement is cancelled after the timeout
    // and a wait for a pooled connection is bounded (both answer 503, see http/errors.ts). JIT
    // compilation only costs an OLTP service's short queries time.
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: options.poolTimeoutMs ?? 5_000,
      statement_timeout: options.statementTimeoutMs ?? 10_000,
      options: "-c jit=off",
    });
    // An idle client that loses its server (restart, pg_terminate_backend) is dropped, not fatal.
    pool.on("error", () => {});
    // A checked-out client has no listener of the pool's: losing its server there (Kysely holds it
    // for a query or a transaction) emitted an unhandled 'error' and crashed the process. The query
    // in flight still fails (503), and the pool drops the client when it is released.
    pool.on("connect", (client) => {
      client.on("error", () => {});
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withPreparedReads(pool) }), plugins });
    return {
      kind: "postgres",
      db,
      pool,
      connectionString: options.databaseUrl,
      close: () => db.destroy(),
    };
  }
  const dataDir = options.dataDir ?? ".data";
  const inMemory = dataDir.startsWith("memory://");
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  const lock = inMemory ? undefined : await lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    const isNew = !inMemory && !existsSync(path.join(dataDir, "PG_VERSION"));
    // The template is a gzipped tar of the data directory (PGlite's `dumpDataDir`): unpacked with
    // native gunzip and plain file writes, instead of through PGlite's WebAssembly file system. At
    // once and in small reads: nothing else waits on the process yet, and tar's streams and large
    // default reads grew the process's memory for as long as it ran.
    const template = options.template && existsSync(options.template) ? options.template : undefined;
    if (isNew && template) {
      extract({ file: template, cwd: dataDir, preserveOwner: false, sync: true, maxReadSize: 256 * 1024 });
    }
    // A database in memory has no directory to unpack into: PGlite loads the same tarball itself
    // (its type says it is gzipped).
    const loadDataDir =
      inMemory && template ? new Blob([await readFile(template)], { type: "application/gzip" }) : undefined;
    // pg_trgm backs the search index and unaccent the accent-blind search text (migration 0012).
    pglite = await PGlite.create(dataDir, {
      extensions: { pg_trgm, unaccent },
      startParams: embeddedStartParams,
      ...(loadDataDir && { loadDataDir }),
    });
  } catch (error) {
    await lock?.release();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: serialPGliteDialect(pglite), plugins });
  return {
    kind: "pglite",
    db,
    pglite,
    close: async () => {
      try {
        await db.destroy();
        if (!pglite.closed) await pglite.close();
      } finally {
        await lock?.release();
      }
    },
  };
}

/**
 * Makes `dataDir` this process's alone, for as long as it runs: PGlite has no lock of its own, and
 * two processes writing one data directory lose data. The lock is a Unix socket (a named pipe on
 * Windows) this process listens on: the kernel frees it when the process ends, however it ends, and
 * a socket file left behind by a killed process refuses connections, so it is told apart from a
 * live one.
 */
async function lockDataDir(dataDir: string): Promise<{ release(): Promise<void> }> {
  const absolute = path.resolve(dataDir);
  const digest = createHash("sha256").update(absolute).digest("hex").slice(0, 24);
  const inside = path.join(absolute, ".lock.sock");
  // A socket's path is limited to about 100 bytes; a deeper data directory locks through the temp dir.
  const address =
    process.platform === "win32"
      ? `\\\\.\\pipe\\modpack-data-${digest}`
      : Buffer.byteLength(inside) <= 100
        ? inside
        : path.join(tmpdir(), `modpack-data-${digest}.sock`);
  const inUse = () =>
    new DatabaseInUseError(
      `The embedded database in ${absolute} is in use by another process (a running server or a db: command): stop it first, or set DATA_DIR to another directory`,
    );
  const listen = () =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((socket) => socket.destroy());
      server.once("error", reject);
      server.listen(address, () => {
        server.off("error", reject);
        // The lock never keeps the process alive on its own.
        server.unref();
        resolve(server);
      });
    });
  let server: Server;
  try {
    server = await listen();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    if (process.platform === "win32") throw inUse();
    const alive = await new Promise<boolean>((resolve) => {
      const probe = connect(address);
      probe.once("connect", () => {
        probe.destroy();
        resolve(true);
      });
      probe.once("error", () => resolve(false));
    });
    if (alive) throw inUse();
    // Left behind by a process that is gone: take it over.
    await rm(address, { force: true });
    try {
      server = await listen();
    } catch {
      throw inUse();
    }
  }
  return {
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/**
 * PGlite has one connection. Kysely's PGlite driver hands that connection to every caller at
 * once, so a query from one request could run inside another request's open transaction.
 * This dialect is Kysely's, with its driver's connection made a pool of one: a caller waits until
 * the previous one has released it, exactly as it would on a Postgres pool of size 1.
 */
function serialPGliteDialect(pglite: PGlite): Dialect {
  const dialect = new PGliteDialect({ pglite });
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => serialDriver(dialect.createDriver()),
  };
}

function serialDriver(driver: Driver): Driver {
  let tail: Promise<void> = Promise.resolve();
  const releases = new WeakMap<DatabaseConnection, () => void>();
  return {
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
      releases.get(connection)?.();
      releases.delete(connection);
    },
    beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    savepoint: driver.savepoint?.bind(driver),
    rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
    releaseSavepoint: driver.releaseSavepoint?.bind(driver),
    destroy: () => driver.destroy(),
  };
}
