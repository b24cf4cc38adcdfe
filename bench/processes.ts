/** Child processes: the service and the baseline (forked, IPC), and /proc sampling. */

import { type ChildProcess, fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const benchDir = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(benchDir, "..");
/** How every TypeScript child runs: tsx, and the workspace packages from source. */
export const tsxArgs = ["--import", "tsx", "--conditions=@modpack/source"];

/**
 * The service child (service-server.ts) runs the built server, the bundle `pnpm start` and the
 * Docker image run; `BENCH_SERVICE_SOURCE=1` runs the sources under tsx instead.
 */
export const serviceFromSource = process.env.BENCH_SERVICE_SOURCE === "1";

/** Builds the server when its build is stale (turbo's cache makes an up-to-date build a no-op). */
export async function buildServer(): Promise<void> {
  const build = spawn(
    "pnpm",
    ["exec", "turbo", "run", "build", "--filter=@modpack/server", "--output-logs=errors-only"],
    { cwd: repoRoot, stdio: "inherit" },
  );
  const code = await new Promise<number | null>((resolve) => build.once("exit", resolve));
  if (code !== 0) throw new Error(`the server's build failed (${code})`);
}

export interface Child {
  pid: number;
  port: number;
  process: ChildProcess;
  /** Statements the child sent to Postgres since the last call (and, with detail on, by SQL text). */
  queries(): Promise<{ count: number; bySql?: Record<string, number> }>;
  /** The child's process.memoryUsage(), before and (when it runs with --expose-gc) after a full GC. */
  memory(): Promise<{ before: NodeJS.MemoryUsage; after?: NodeJS.MemoryUsage; spaces?: Record<string, number> }>;
  /** Sends a message and waits for the child's answer of type `answer`. */
  ask<T extends { type?: string }>(message: object, answer: string): Promise<T>;
  /** Asks the child to stop gracefully; kills it after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * How the service child runs: under tsx from source, or, running the build, under Node alone (its
 * own type stripping reads service-server.ts and the two modules it imports): tsx would also load
 * the bundle through its loader and turn on source maps, which grows the child's memory with the
 * bundle's size and makes every stack trace map its frames, neither of which `pnpm start` does.
 */
const serviceExecArgv = serviceFromSource
  ? tsxArgs
  : (process as { features?: { typescript?: unknown } }).features?.typescript
    ? []
    : ["--experimental-strip-types", "--no-warnings=ExperimentalWarning"];

/**
 * The deployed configuration every service child starts with: production (no /docs bundle, no
 * development IdP, so a provider), silent logs, an https public URL (production serves Secure
 * cookies; requests still go to 127.0.0.1) and a webhook key of its own, as production requires.
 */
const deployedEnv = {
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
  LOG_LEVEL: "silent",
  NODE_ENV: "production",
  OAUTH_PROVIDER: "github",
  OAUTH_CLIENT_ID: "bench",
  OAUTH_CLIENT_SECRET: "bench",
  PUBLIC_URL: "https://bench.invalid",
};

/**
 * Starts the real service (service-server.ts) in the deployed configuration, from the server's
 * build (built first when stale) unless `BENCH_SERVICE_SOURCE=1`; `env` adds to the environment and
 * the deployed configuration, `nodeFlags` to node's flags.
 */
export async function forkService(env: Record<string, string | undefined>, nodeFlags: string[]): Promise<Child> {
  if (!serviceFromSource) await buildServer();
  return forkServer(
    "service-server.ts",
    { ...process.env, ...deployedEnv, ...env },
    nodeFlags,
    undefined,
    serviceExecArgv,
  );
}

/** Forks a TypeScript script that sends `{ type: "ready", port }` once listening (under tsx unless `runtimeArgv` says otherwise). */
export async function forkServer(
  script: string,
  env: Record<string, string | undefined>,
  extraExecArgv: string[] = [],
  readyTimeoutMs = 120_000,
  runtimeArgv: string[] = tsxArgs,
): Promise<Child> {
  const child = fork(path.join(benchDir, script), [], {
    cwd: benchDir,
    env: env as NodeJS.ProcessEnv,
    execArgv: [...runtimeArgv, ...extraExecArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${script} did not start within ${readyTimeoutMs} ms`)),
      readyTimeoutMs,
    );
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready`));
    });
    child.on("message", (message: { type?: string; port?: number }) => {
      if (message?.type === "ready" && message.port) {
        clearTimeout(timer);
        resolve(message.port);
      }
    });
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    pid: child.pid ?? 0,
    port,
    process: child,
    queries() {
      return new Promise((resolve) => {
        const onMessage = (message: { type?: string; count?: number; bySql?: Record<string, number> }) => {
          if (message?.type !== "queries") return;
          child.off("message", onMessage);
          resolve({ count: message.count ?? 0, ...(message.bySql ? { bySql: message.bySql } : {}) });
        };
        child.on("message", onMessage);
        child.send({ type: "queries" });
      });
    },
    ask<T extends { type?: string }>(message: object, answer: string) {
      return new Promise<T>((resolve) => {
        const onMessage = (reply: T) => {
          if (reply?.type !== answer) return;
          child.off("message", onMessage);
          resolve(reply);
        };
        child.on("message", onMessage);
        child.send(message);
      });
    },
    memory() {
      return new Promise((resolve) => {
        const onMessage = (message: {
          type?: string;
          before: NodeJS.MemoryUsage;
          after?: NodeJS.MemoryUsage;
          spaces?: Record<string, number>;
        }) => {
          if (message?.type !== "memory") return;
          child.off("message", onMessage);
          resolve({
            before: message.before,
            ...(message.after ? { after: message.after } : {}),
            ...(message.spaces ? { spaces: message.spaces } : {}),
          });
        };
        child.on("message", onMessage);
        child.send({ type: "memory" });
      });
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null) return;
      child.send({ type: "stop" });
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** VmRSS and VmHWM (peak) of a process, in MB, from /proc (Linux). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `intervalMs` until stopped; answers the largest value seen. */
export function sampleRss(pid: number, intervalMs = 200): { stop(): number } {
  let max = 0;
  const take = () => {
    const memory = memoryOf(pid);
    if (memory && memory.rssMb > max) max = memory.rssMb;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return max;
    },
  };
}

/** RSS by kind of mapping (heap, anonymous, files), from /proc/<pid>/smaps, in MB: where the memory is. */
export function smapsSummary(pid: number): Record<string, number> {
  const totals: Record<string, number> = {};
  try {
    let current = "";
    for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
      const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (header) {
        const name = header[1] ?? "";
        current = name === "" ? "[anonymous]" : name.startsWith("/") ? path.basename(name) : name;
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (rss) totals[current] = (totals[current] ?? 0) + Number(rss[1]) / 1024;
    }
  } catch {
    return {};
  }
  return Object.fromEntries(
    Object.entries(totals)
      .filter(([, mb]) => mb >= 1)
      .sort((a, b) => b[1] - a[1])
      .map(([name, mb]) => [name, Math.round(mb)]),
  );
}

/** CPU time a process has used so far, in ms, from /proc/<pid>/stat: user, system and their sum. */
export function cpuMsOf(pid: number): { user: number; system: number; total: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const user = (Number(fields[11]) * 1000) / 100;
    const system = (Number(fields[12]) * 1000) / 100;
    return { user, system, total: user + system };
  } catch {
    return { user: Number.NaN, system: Number.NaN, total: Number.NaN };
  }
}
