import type pg from "pg";

/**
 * Resolves once `count` sessions of the admin client's database wait for a lock (row, advisory or
 * any other); fails as soon as one of `watched` settles first, since a call that was meant to be
 * held has then not been held.
 */
export async function waitForLockWaiters(admin: pg.Client, count: number, watched: Promise<unknown>[]): Promise<void> {
  let settled = false;
  const markSettled = () => {
    settled = true;
  };
  for (const call of watched) call.then(markSettled, markSettled);
  for (;;) {
    if (settled) throw new Error(`a held call settled before ${count} sessions waited on a lock`);
    const { rows } = await admin.query<{ waiting: number }>(
      `select count(*)::int as waiting from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if ((rows[0]?.waiting ?? 0) >= count) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
