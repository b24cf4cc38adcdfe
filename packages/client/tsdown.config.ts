import { defineConfig, type UserConfig } from "tsdown";

type Plugin = Extract<NonNullable<UserConfig["plugins"]>, { name: string }>;

/**
 * The contract's `Meta` is trpc-to-openapi's `OpenApiMeta`. That package's index also declares its
 * Express/Fastify/Koa/Next adapters, so in the declaration bundle its index is cut down to its
 * `types` module (which needs only `@trpc/server` and `zod`): the meta type is inlined and
 * trpc-to-openapi stays out of the client's dependencies.
 */
function openApiMetaTypesOnly(): Plugin {
  return {
    name: "modpack:trpc-to-openapi-types-only",
    load: {
      order: "pre",
      filter: { id: /[\\/]trpc-to-openapi[\\/]dist[\\/](cjs|esm)[\\/]index\.d\.ts$/ },
      handler() {
        return 'export * from "./types";\n';
      },
    },
  };
}

/**
 * One ESM entry plus one bundled `index.d.ts`. The contract is private and never published, so
 * its types (the router, the schemas' inferred types, trpc-to-openapi's meta type) are inlined
 * into the declaration file; what stays imported there is `@trpc/client`, `@trpc/server` and
 * `zod`, the package's dependencies.
 */
export default defineConfig({
  entry: ["src/index.ts"],
  format: "esm",
  platform: "neutral",
  target: "es2022",
  outDir: "dist",
  fixedExtension: false,
  tsconfig: "tsconfig.build.json",
  // resolver "tsc" honours the `@modpack/source` condition, so the contract's types come from its
  // sources (no contract build needed); tsconfig.build.json lists those sources and `eager` puts
  // them in one tsc program, or tsc would skip emitting files it reached through node_modules.
  dts: { tsconfig: "tsconfig.build.json", resolver: "tsc", eager: true },
  deps: {
    neverBundle: ["@trpc/client", "@trpc/server", "zod"],
    // Anything else from node_modules ending up in the bundle is a mistake: fail the build.
    onlyBundle: ["trpc-to-openapi"],
    dts: { alwaysBundle: ["@modpack/contract", "trpc-to-openapi"] },
  },
  plugins: [openApiMetaTypesOnly()],
  // tsc inside the declaration build takes most of the few seconds; that is expected, not a warning.
  checks: { bundlerTimings: false },
});
