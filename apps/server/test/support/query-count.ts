import { vi } from "vitest";
import type { TestService } from "./service.js";

/**
 * The SQL of every statement sent through the service's database handle while `action` runs
 * (builders and raw `sql` alike, and fixed pages read through `withoutPlugins()`, whose executor is
 * a copy of the handle's), so a test can prove a list costs the same few queries at any size.
 */
export async function statementsOf<T>(
  service: TestService,
  action: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  const executor = Object.getPrototypeOf(service.runtime.database.db.getExecutor()) as {
    executeQuery: (query: { sql: string }) => Promise<unknown>;
  };
  const spy = vi.spyOn(executor, "executeQuery");
  try {
    const result = await action();
    return { result, statements: spy.mock.calls.map(([query]) => query.sql) };
  } finally {
    spy.mockRestore();
  }
}
