import { defineConfig } from "tsdown";

/**
 * The server as three ESM entry points (the service, `db:migrate`, `db:seed`) sharing chunks. The
 * contract is bundled from its sources (the `@modpack/source` condition), so the server's build needs
 * no contract build first; every npm dependency stays an import, loaded from node_modules at run time
 * (PGlite loads its WebAssembly files beside its own modules). Types are checked by `pnpm typecheck`.
 */
export default defineConfig({
  entry: {
    main: "src/main.ts",
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
    alwaysBundle: ["@modpack/contract"],
  },
  inputOptions: { resolve: { conditionNames: ["@modpack/source", "import", "node", "default"] } },
  checks: { bundlerTimings: false },
});
