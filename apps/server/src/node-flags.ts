/**
 * The node flags the service runs with. `pnpm start`, `pnpm start:worker` and the Docker image's
 * command write them out (test/node-flags.test.ts holds those equal to this list); the development
 * server, the tests that start the bundle and the bench take them from here.
 *
 * - `--liftoff-only`: V8's optimizing WebAssembly compiler would recompile the embedded database's
 *   hot functions while it starts, adding CPU time and peak memory to every start. No effect on
 *   Postgres.
 * - `--max-semi-space-size=16`: the semi-spaces of V8's young generation capped at 16 MB (up to
 *   32 MB by default). Smaller ones cost more garbage collection under load, larger ones more
 *   memory.
 * - `--heap-growing-percent=100`: the old generation may grow to twice what its last full
 *   collection kept before the next one, instead of up to four times. The service keeps little
 *   alive between requests, so a heap allowed to grow fourfold mostly holds garbage: the cap keeps
 *   the process's memory under load close to what it uses.
 *
 * `pnpm bench` and `pnpm bench --startup` measure the effect of these flags (bench/README.md).
 */
export const nodeFlags: readonly string[] = [
  "--liftoff-only",
  "--max-semi-space-size=16",
  "--heap-growing-percent=100",
];
