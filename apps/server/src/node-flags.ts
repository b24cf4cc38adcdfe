/**
 * The node flags the service runs with. `pnpm start`, `pnpm start:worker` and the Docker image's
 * command write them out (test/node-flags.test.ts holds those equal to this list); the development
 * server, the tests that start the bundle and the bench take them from here.
 *
 * - `--liftoff-only`: V8's optimizing WebAssembly compiler would recompile the embedded database's
 *   hot functions while it starts, doubling the start's CPU time and its peak memory. No effect on
 *   Postgres.
 * - `--max-semi-space-size=4`: a 4 MB young generation keeps a new embedded database's idle RSS
 *   under 200 MB. A larger one costs less garbage collection under load (see the README's
 *   "Benchmarks").
 */
export const nodeFlags: readonly string[] = ["--liftoff-only", "--max-semi-space-size=4"];
