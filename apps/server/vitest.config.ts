import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["@modpack/source"] },
  ssr: { resolve: { conditions: ["@modpack/source"] } },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
