import { defineConfig } from "tsdown";

/**
 * Packages left to node_modules: PGlite loads its WebAssembly and data files beside its own modules,
 * pino starts its transports (pino-pretty) from their files in worker threads, and pg's modules
 * require each other in a cycle that does not survive bundling.
 */
const loadedFromNodeModules = /^(@electric-sql\/pglite|pino|pino-pretty|thread-stream|pg|pg-pool|pg-native)(\/|$)/;

/**
 * The server as ESM entry points (the service, `db:migrate`, `db:seed`, the embedded template, and
 * the runtime and configuration the benchmark's service child starts) sharing chunks. The contract
 * is bundled from its sources (the `@modpack/source` condition), so the server's build needs no
 * contract build first, and so is every npm dependency but the few above: a
 * start then reads a handful of files instead of resolving and loading about a thousand modules
 * (kysely, zod, fastify, pg-boss, arctic…), which took about 200 ms of each start's CPU time. Types
 * are checked by `pnpm typecheck`.
 */
export default defineConfig({
  entry: {
    main: "src/main.ts",
    runtime: "src/runtime.ts",
    config: "src/config.ts",
    "cli/template-cli": "src/cli/template-cli.ts",
    "cli/migrate-cli": "src/cli/migrate-cli.ts",
    "cli/seed-cli": "src/cli/seed-cli.ts",
  },
  format: "esm",
  platform: "node",
  target: "node22",
  outDir: "dist",
  fixedExtension: false,
  tsconfig: "tsconfig.build.json",
  dts: false,
  sourcemap: true,
  deps: {
    alwaysBundle: (id) => !loadedFromNodeModules.test(id),
    onlyBundle: false,
  },
  inputOptions: { resolve: { conditionNames: ["@modpack/source", "import", "node", "default"] } },
  // ASCII output, JSDoc left out: V8 keeps a module's source as one byte per character only when
  // every character fits one, and the bundled chunks (Scalar's reference the largest) are held in
  // memory for as long as the process runs.
  outputOptions: { charset: "ascii", comments: { jsdoc: false } },
  checks: { bundlerTimings: false },
});
