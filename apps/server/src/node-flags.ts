/**
 * The node flags the service runs with. `pnpm start`, `pnpm start:worker` and the Docker image's
 * command write them out (test/node-flags.test.ts holds those equal to this list); the development
 * server, the tests that start the bundle and the bench take them from here.
 *
 * - `--liftoff-only`: V8's optimizing WebAssembly compiler would recompile the embedded database's
 *   hot functions while it starts, doubling the start's CPU time and its peak memory. No effect on
 *   Postgres.
 * - `--max-semi-space-size=16`: the semi-spaces of V8's young generation capped at 16 MB (up to
 *   32 MB by default). Smaller ones cost more garbage collection under load, larger ones more
 *   memory (see the README's "Run it").
 * - `--heap-growing-percent=100`: the old generation may grow to twice what its last full
 *   collection kept before the next one, instead of up to four times. A busy service keeps about
 *   40 MB alive, so under load it peaks near 250 MB of RSS instead of 300, and a new embedded
 *   database still idles under 200 MB.
 */
export const nodeFlags: readonly string[] = [
  "--liftoff-only",
  "--max-semi-space-size=16",
  "--heap-growing-percent=100",
];
