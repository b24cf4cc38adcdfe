/**
 * The real service in a child process (so its RSS and CPU profile are its own), run from the
 * server's build (see processes.ts `serviceFromSource`): loadConfig from the environment,
 * startRuntime (migrations, pg-boss with workers, services, HTTP app), listen on 127.0.0.1:0. Reports its port over IPC; on "stop" closes the runtime and exits (which also writes
 * the CPU profile when started with --cpu-prof).
 */

import v8 from "node:v8";
import type * as ConfigModule from "@modpack/server/config";
import type * as RuntimeModule from "@modpack/server/runtime";
import { answerProfileMessage } from "./profiler.ts";
import { answerQueryCounts, installQueryCounter } from "./query-counter.ts";

// The built server (what `pnpm start` runs), or with BENCH_SERVICE_SOURCE=1 the sources under tsx.
const fromSource = process.env.BENCH_SERVICE_SOURCE === "1";
const { loadConfig } = (await import(
  fromSource ? "@modpack/server/config" : "../apps/server/dist/config.js"
)) as typeof ConfigModule;
const { startRuntime } = (await import(
  fromSource ? "@modpack/server/runtime" : "../apps/server/dist/runtime.js"
)) as typeof RuntimeModule;
installQueryCounter(process.env.BENCH_QUERY_DETAIL === "1", process.env.BENCH_RECORD_SQL === "1");
const config = loadConfig({ ...process.env, PORT: "0", HOST: "127.0.0.1" });
const runtime = await startRuntime(config);
if (!runtime.app) throw new Error("the service started without an HTTP app");
await runtime.app.listen({ port: 0, host: "127.0.0.1" });
const address = runtime.app.server.address();
process.send?.({ type: "ready", port: typeof address === "object" && address ? address.port : 0 });
process.on("message", (message: { type?: string; file?: string }) => {
  if (answerQueryCounts(message)) return;
  if (message?.type?.startsWith("profile-")) {
    void answerProfileMessage(message);
    return;
  }
  if (message?.type === "memory") {
    // With --expose-gc, the heap after a full collection: what is live, not what V8 has yet to collect.
    const gc = (globalThis as { gc?: () => void }).gc;
    const before = process.memoryUsage();
    gc?.();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((space) => [space.space_name, Math.round(space.space_size / 1048576)]),
    );
    process.send?.({ type: "memory", before, after: gc ? process.memoryUsage() : undefined, spaces });
    return;
  }
  if (message?.type !== "stop") return;
  runtime
    .close()
    .catch(() => {})
    .finally(() => process.exit(0));
});
