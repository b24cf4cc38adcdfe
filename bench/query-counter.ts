/**
 * Counts the statements a server process sends to Postgres (every `pg.Client#query`, pools and
 * pg-boss included), so the bench can report statements per request and catch N+1 queries. Both
 * children install it; the orchestrator reads and resets it over IPC between runs.
 */
import pg from "pg";

let count = 0;
let bySql: Map<string, number> | undefined;

export function installQueryCounter(detail = false): void {
  if (detail) bySql = new Map();
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    if (bySql) {
      const first = args[0];
      const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "?");
      const key = text.replace(/\s+/g, " ").slice(0, 100);
      bySql.set(key, (bySql.get(key) ?? 0) + 1);
    }
    return (original as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/** Answers IPC `{ type: "queries" }` with the counts since the last one, and resets them. */
export function answerQueryCounts(message: { type?: string }): boolean {
  if (message?.type !== "queries") return false;
  process.send?.({ type: "queries", count, bySql: bySql ? Object.fromEntries(bySql) : undefined });
  count = 0;
  bySql?.clear();
  return true;
}
