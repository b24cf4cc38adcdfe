import { hash } from "node:crypto";
import pg from "pg";

/**
 * SQL texts sent as named prepared statements, by text. Only statements of fixed shape are named
 * (see `reusableQuery`), so the set is bounded by the code, not by the requests: each pooled
 * connection parses a named statement once and Postgres reuses its plan (a generic plan once five
 * executions showed it costs no more than planning each call), instead of parsing and planning the
 * text on every call. The service's fixed-shape reads are small lookups by key, for which planning
 * is most of Postgres's work.
 */
const names = new Map<string, string>();

/**
 * At most this many texts are named (each is kept by every pooled connection that ran it); past it
 * a new text goes unnamed. The service's fixed shapes number a few dozen.
 */
const MAX_NAMED = 1_000;

/** Sends `sql` as a named prepared statement on every pooled Postgres connection from now on. */
export function nameStatement(sql: string): void {
  if (names.size < MAX_NAMED && !names.has(sql)) names.set(sql, `mcs_${hash("sha256", sql, "base64url").slice(0, 22)}`);
}

/**
 * Postgres refuses a prepared statement whose result columns changed since it was prepared (a
 * migration added a column to a table it reads with `*`, while this process kept serving).
 */
export function isStalePlan(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === "0A000" &&
    /cached plan must not change result type/.test(String((error as { message?: unknown }).message))
  );
}

type Send = (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * A pg client that sends the named statements' texts by name (parsed once per connection); every
 * other query goes as pg sends it, unnamed. Kysely calls `query(text, parameters)`.
 *
 * A statement Postgres refuses as stale (`isStalePlan`) is prepared again under a new name on this
 * connection (the names carry the connection's generation), so the next call succeeds; a call
 * outside a transaction is sent again at once, one inside a transaction fails (503, see
 * edge/errors.ts) and its retry succeeds.
 */
export class PreparingClient extends pg.Client {
  /** The transaction status of the last ReadyForQuery: `I` idle, `T` in a transaction, `E` in a failed one. */
  #status = "I";
  #generation = 0;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const connection = (this as unknown as { connection: NodeJS.EventEmitter }).connection;
    connection.on("readyForQuery", (message: { status?: string }) => {
      this.#status = message.status ?? "I";
    });
  }

  async sendNamed(name: string, text: string, values: unknown[]): Promise<unknown> {
    const send = pg.Client.prototype.query as Send;
    const idle = this.#status === "I";
    const generation = this.#generation;
    try {
      return await send.call(this, { name: generation ? `${name}_${generation}` : name, text, values });
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      if (this.#generation === generation) this.#generation += 1;
      if (!idle) throw error;
      return send.call(this, { name: `${name}_${this.#generation}`, text, values });
    }
  }
}

PreparingClient.prototype.query = function query(this: PreparingClient, ...args: unknown[]) {
  const [config, values] = args;
  if (args.length === 2 && typeof config === "string" && Array.isArray(values)) {
    const name = names.get(config);
    if (name) return this.sendNamed(name, config, values);
  }
  return (pg.Client.prototype.query as Send).apply(this, args);
} as pg.Client["query"];
