import serverPackage from "../package.json" with { type: "json" };

/**
 * The node flags the service runs with, listed once in package.json's `config.nodeFlags`: the start
 * scripts read them as `$npm_package_config_nodeFlags` and the Docker image from the package.json it
 * ships; the development server, the tests that start the bundle and the bench through this export.
 *
 * - `--liftoff-only`: V8's optimizing WebAssembly compiler would recompile the embedded database's
 *   hot functions while it starts, adding CPU time and peak memory to every start. No effect on
 *   Postgres.
 * - `--max-semi-space-size=16`, `--heap-growing-percent=100`: smaller semi-spaces than V8's default,
 *   and an old generation growing to at most twice what its last full collection kept (up to four
 *   times by default). The service keeps little alive between requests, so a heap allowed to grow
 *   fourfold mostly holds garbage: the caps keep the process's memory under load close to what it
 *   uses. They change nothing measurable at start.
 *
 * `pnpm bench` and `pnpm bench --startup` measure the effect of these flags (bench/README.md).
 */
export const nodeFlags: readonly string[] = serverPackage.config.nodeFlags.split(" ");
