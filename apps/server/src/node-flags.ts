/**
 * The node flags the service runs with. `pnpm start`, `pnpm start:worker` and the Docker image's
 * command write them out (test/node-flags.test.ts holds those equal to this list); the development
 * server, the tests that start the bundle and the bench take them from here.
 *
 * - `--liftoff-only`: V8's optimizing WebAssembly compiler would recompile the embedded database's
 *   hot functions while it starts, doubling the start's CPU time and its peak memory. No effect on
 *   Postgres.
 * - `--max-semi-space-size=8`: the semi-spaces of V8's young generation capped at 8 MB (up to 32 MB
 *   by default), so a new embedded database idles under 200 MB of RSS. Smaller ones cost more
 *   garbage collection under load, larger ones more memory (see the README's "Benchmarks").
 */
export const nodeFlags: readonly string[] = ["--liftoff-only", "--max-semi-space-size=8"];
