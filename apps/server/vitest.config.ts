import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@modpack/source"] },
  ssr: { resolve: { conditions: ["@modpack/source"] } },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Migrates one database for the run; each test file's database is a copy of it.
    globalSetup: ["test/support/global-setup.ts"],
    // Bounded, but generous: on a loaded 2-core machine one test that starts its own service can take a while.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
