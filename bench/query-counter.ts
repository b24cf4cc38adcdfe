/**
 * Counts the statements a server process sends to Postgres (every `pg.Client#query`, pools and
 * pg-boss included), so the bench can report statements per request and catch N+1 queries. Both
 * children install it; the orchestrator reads and resets it over IPC between runs. With recording
 * on, it also keeps the text and parameters of the statements since the last reset (`--scale` runs
 * EXPLAIN on them).
 */
import pg from "pg";

let count = 0;
let bySql: Map<string, number> | undefined;
let recorded: { sql: string; parameters: unknown[] }[] | undefined;

export function installQueryCounter(detail = false, record = false): void {
  if (detail) bySql = new Map();
  if (record) recorded = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    const first = args[0];
    if (bySql || recorded) {
      const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "?");
      if (bySql) {
        const key = text.replace(/\s+/g, " ").slice(0, 100);
        bySql.set(key, (bySql.get(key) ?? 0) + 1);
      }
      if (recorded && recorded.length < 200) {
        const values = Array.isArray(args[1]) ? args[1] : ((first as { values?: unknown[] } | undefined)?.values ?? []);
        recorded.push({ sql: text, parameters: values });
      }
    }
    return (original as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/**
 * Answers IPC `{ type: "queries" }` with the counts since the last one, and `{ type: "statements" }`
 * with the recorded statements since the last one; each resets what it answers.
 */
export function answerQueryCounts(message: { type?: string }): boolean {
  if (message?.type === "statements") {
    process.send?.({ type: "statements", statements: recorded ?? [] });
    if (recorded) recorded = [];
    return true;
  }
  if (message?.type !== "queries") return false;
  process.send?.({ type: "queries", count, bySql: bySql ? Object.fromEntries(bySql) : undefined });
  count = 0;
  bySql?.clear();
  return true;
}
