import { defineConfig } from "tsdown";

/**
 * ESM with declarations, one output module per source module (`unbundle`), so that a bundler using
 * only part of the contract (the client's error helpers) can leave the rest out: the router's
 * construction is top-level code that a single bundled file would force on every importer. The
 * dependencies (tRPC, zod, trpc-to-openapi) stay imports.
 */
export default defineConfig({
  entry: ["src/index.ts"],
  unbundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  fixedExtension: false,
  tsconfig: "tsconfig.build.json",
  dts: { tsconfig: "tsconfig.build.json" },
  sourcemap: true,
  checks: { bundlerTimings: false },
});
