/**
 * Start-up figures of the built server (`node apps/server/dist/main.js`): wall time from the command
 * to a 200 on `/health`, the process's CPU time and peak RSS at that moment, and its RSS once idle,
 * on a new and on an existing embedded database (and on Postgres when a server answers), medians of
 * `runs` starts each. `pnpm bench --startup` prints only these; `pnpm bench` prints them at the end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { cpuMsOf, memoryOf, repoRoot } from "./processes.js";

export const serverEntry = path.join(repoRoot, "apps/server/dist/main.js");
/** The node flags of `pnpm start` (apps/server/package.json). */
export const startFlags = ["--liftoff-only", "--max-semi-space-size=16"];

export interface StartFigures {
  /** From spawn to the first 200 on /health. */
  wallMs: number;
  /** The process's user + system CPU at that moment. */
  cpuMs: number;
  /** VmHWM at that moment. */
  peakRssMb: number;
  /** VmRSS after `idleMs` more without requests. */
  idleRssMb: number;
}

export interface StartSeries {
  label: string;
  runs: StartFigures[];
  median: StartFigures;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** Starts the built server once with `env`, waits for /health, samples it, then stops it with SIGTERM. */
export async function measureStart(env: Record<string, string>, idleMs = 3000): Promise<StartFigures> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    PORT: String(port),
    HOST: "127.0.0.1",
    ...env,
  };
  const started = performance.now();
  const child = spawn(process.execPath, [...startFlags, serverEntry], {
    cwd: repoRoot,
    env: childEnv,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const pid = child.pid ?? 0;
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr.slice(-2000)}`);
      if (Date.now() > deadline)
        throw new Error(`the server did not answer /health within 120 s: ${stderr.slice(-2000)}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wallMs = performance.now() - started;
    const cpuMs = cpuMsOf(pid).total;
    const peakRssMb = memoryOf(pid)?.peakMb ?? Number.NaN;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idleRssMb = memoryOf(pid)?.rssMb ?? Number.NaN;
    return { wallMs, cpuMs, peakRssMb, idleRssMb };
  } finally {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited(child);
      clearTimeout(timer);
    }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function series(label: string, runs: StartFigures[]): StartSeries {
  return {
    label,
    runs,
    median: {
      wallMs: median(runs.map((run) => run.wallMs)),
      cpuMs: median(runs.map((run) => run.cpuMs)),
      peakRssMb: median(runs.map((run) => run.peakRssMb)),
      idleRssMb: median(runs.map((run) => run.idleRssMb)),
    },
  };
}

/** Cold (a new DATA_DIR each time) and warm (the same one again) starts on the embedded database. */
export async function measureEmbeddedStarts(runs: number): Promise<StartSeries[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), "mcs-bench-start-"));
  try {
    const cold: StartFigures[] = [];
    const warm: StartFigures[] = [];
    for (let index = 0; index < runs; index += 1) {
      const dataDir = path.join(root, `run-${index}`);
      cold.push(await measureStart({ DATA_DIR: dataDir }));
      warm.push(await measureStart({ DATA_DIR: dataDir }));
    }
    return [series("embedded, new DATA_DIR", cold), series("embedded, existing DATA_DIR", warm)];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Cold (a new, empty database each time) and warm (the same one again) starts on Postgres. */
export async function measurePostgresStarts(adminUrl: string, runs: number): Promise<StartSeries[]> {
  const cold: StartFigures[] = [];
  const warm: StartFigures[] = [];
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let index = 0; index < runs; index += 1) {
      const name = `mcs_bench_start_${process.pid}_${index}`;
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`create database ${name}`);
      try {
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        cold.push(await measureStart({ DATABASE_URL: url.toString() }));
        warm.push(await measureStart({ DATABASE_URL: url.toString() }));
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
      }
    }
  } finally {
    await admin.end();
  }
  return [series("Postgres, empty database", cold), series("Postgres, migrated database", warm)];
}

/** One line per series: medians, then each run's wall time. */
export function describeStarts(all: StartSeries[]): string[] {
  return all.map(({ label, runs, median: m }) => {
    const walls = runs.map((run) => (run.wallMs / 1000).toFixed(2)).join(", ");
    return `${label.padEnd(30)} wall ${(m.wallMs / 1000).toFixed(2)} s, CPU ${(m.cpuMs / 1000).toFixed(2)} s, peak RSS ${m.peakRssMb.toFixed(0)} MB, idle RSS ${m.idleRssMb.toFixed(0)} MB (median of ${runs.length}; walls ${walls} s)`;
  });
}

/** The start-up goals, as PASS/FAIL lines: medians against the targets. */
export function startTargets(all: StartSeries[]): { target: string; pass: boolean; detail: string }[] {
  const byLabel = new Map(all.map((item) => [item.label, item.median]));
  const targets: { target: string; pass: boolean; detail: string }[] = [];
  const cold = byLabel.get("embedded, new DATA_DIR");
  const warm = byLabel.get("embedded, existing DATA_DIR");
  if (warm)
    targets.push({
      target: "embedded start, existing DATA_DIR ≤ 1 s",
      pass: warm.wallMs <= 1000,
      detail: `${(warm.wallMs / 1000).toFixed(2)} s`,
    });
  if (cold)
    targets.push({
      target: "embedded start, new DATA_DIR ≤ 3 s",
      pass: cold.wallMs <= 3000,
      detail: `${(cold.wallMs / 1000).toFixed(2)} s`,
    });
  for (const [label, median] of [
    ["new", cold],
    ["existing", warm],
  ] as const) {
    if (!median) continue;
    targets.push({
      target: `embedded start (${label}): peak RSS ≤ 300 MB`,
      pass: median.peakRssMb <= 300,
      detail: `${median.peakRssMb.toFixed(0)} MB`,
    });
    targets.push({
      target: `embedded start (${label}): idle RSS ≤ 200 MB`,
      pass: median.idleRssMb <= 200,
      detail: `${median.idleRssMb.toFixed(0)} MB`,
    });
  }
  return targets;
}

/**
 * `pnpm bench --startup`: builds the server when its build is stale (turbo), then measures `runs`
 * starts of each kind; Postgres ones when `adminUrl` answers.
 */
export async function runStartupBench(
  adminUrl: string | undefined,
  runs: number,
  log: (line: string) => void,
): Promise<StartSeries[]> {
  const build = spawn(
    "pnpm",
    ["exec", "turbo", "run", "build", "--filter=@modpack/server", "--output-logs=errors-only"],
    {
      cwd: repoRoot,
      stdio: "inherit",
    },
  );
  const code = await new Promise<number | null>((resolve) => build.once("exit", resolve));
  if (code !== 0) throw new Error(`the server's build failed (${code})`);
  log(
    `start-up: node ${startFlags.join(" ")} apps/server/dist/main.js, ${runs} starts of each kind, load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(" ")}`,
  );
  const all = await measureEmbeddedStarts(runs);
  if (adminUrl) {
    try {
      all.push(...(await measurePostgresStarts(adminUrl, runs)));
    } catch (error) {
      log(`Postgres starts skipped: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (const line of describeStarts(all)) log(line);
  return all;
}
