import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { type FileHandle, mkdir, open, rm } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
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
  /** Postgres: longest a statement may run before the server cancels it (0: no limit). */
  statementTimeoutMs?: number | undefined;
  /** Postgres: longest a query waits for a free pooled connection (or a new one to connect). */
  poolTimeoutMs?: number | undefined;
  /**
   * A gzipped tarball of an initialized, migrated embedded database (`pnpm build` makes one beside
   * the built server). A new `dataDir` starts as a copy of it instead of running initdb; a missing
   * file is no error.
   */
  template?: string | undefined;
}

/** Another process holds the embedded database's directory. */
export class DatabaseInUseError extends Error {
  override name = "DatabaseInUseError";
}

/**
 * Postgres settings of the embedded database: it serves one process, so 8 MB of shared buffers
 * (Postgres's default is 128 MB) keep its memory small: PGlite touches all of them at start, so
 * each of those megabytes stays in the process's resident memory; pages beyond them are read from
 * the operating system's file cache. The rest are PGlite's own defaults.
 */
const embeddedStartParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=8MB"];

// Bigint counts as numbers, as PGlite reads them (counts never exceed 2^53 here).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/**
 * Opens the service's database: a pooled Postgres when a URL is given, otherwise the
 * embedded PGlite keeping its files in `dataDir` (`memory://` keeps them in memory).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const plugins = [new CamelCasePlugin()];
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
  const inMemory = dataDir.startsWith("memory://");
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  const lock = inMemory ? undefined : await lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    const isNew = !inMemory && !existsSync(path.join(dataDir, "PG_VERSION"));
    if (isNew && options.template && existsSync(options.template)) await extractTemplate(options.template, dataDir);
    // pg_trgm backs the search indexes of migration 0002.
    pglite = await PGlite.create(dataDir, { extensions: { pg_trgm }, startParams: embeddedStartParams });
  } catch (error) {
    await lock?.release();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new SerialPGliteDialect({ pglite }), plugins });
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
 * Writes the template's files into a new data directory: a gzipped tar (what PGlite's `dumpDataDir`
 * writes) of plain files and directories. Native gunzip and plain writes take a fraction of the
 * time PGlite's own `loadDataDir` takes, which extracts through its WebAssembly file system. The
 * archive is streamed, file by file: holding the whole unpacked tar at once would leave that much
 * more memory with the process for as long as it ran.
 */
async function extractTemplate(template: string, dataDir: string): Promise<void> {
  const root = path.resolve(dataDir);
  await pipeline(createReadStream(template), createGunzip({ chunkSize: 256 * 1024 }), async (source) => {
    let header = Buffer.alloc(0);
    let file: FileHandle | undefined;
    let fileMode = 0o600;
    let remaining = 0;
    let padding = 0;
    let ended = false;
    const closeFile = async () => {
      if (!file) return;
      await file.chmod(fileMode);
      await file.close();
      file = undefined;
    };
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        let data = chunk;
        while (data.length > 0 && !ended) {
          if (remaining > 0) {
            const piece = data.subarray(0, remaining);
            await file?.write(piece);
            remaining -= piece.length;
            data = data.subarray(piece.length);
            if (remaining === 0) await closeFile();
            continue;
          }
          if (padding > 0) {
            const skipped = Math.min(padding, data.length);
            padding -= skipped;
            data = data.subarray(skipped);
            continue;
          }
          const needed = 512 - header.length;
          header = Buffer.concat([header, data.subarray(0, needed)]);
          data = data.subarray(needed);
          if (header.length < 512) break;
          const entry = header;
          header = Buffer.alloc(0);
          // Two zero blocks end the archive.
          if (entry[0] === 0) {
            ended = true;
            break;
          }
          const text = (from: number, length: number) => {
            const field = entry.subarray(from, from + length);
            const end = field.indexOf(0);
            return field.subarray(0, end < 0 ? length : end).toString("utf8");
          };
          const name = `${text(345, 155)}${text(0, 100)}`;
          const mode = Number.parseInt(text(100, 8).trim() || "0", 8) & 0o777;
          const size = Number.parseInt(text(124, 12).trim() || "0", 8);
          const type = String.fromCharCode(entry[156] ?? 0);
          const target = path.resolve(root, `.${path.posix.sep}${name}`);
          if (target !== root && !target.startsWith(`${root}${path.sep}`))
            throw new Error(`template entry outside the data directory: ${name}`);
          padding = Math.ceil(size / 512) * 512 - size;
          if (type === "5") {
            await mkdir(target, { recursive: true, mode: mode || 0o700 });
            padding += size;
          } else if (type === "0" || type === "\0") {
            await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
            fileMode = mode || 0o600;
            file = await open(target, "w", fileMode);
            remaining = size;
            if (remaining === 0) await closeFile();
          } else {
            throw new Error(`template entry of unsupported type ${JSON.stringify(type)}: ${name}`);
          }
        }
      }
    } finally {
      await file?.close();
    }
  });
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
