/**
 * Start-up figures of the built server (`node apps/server/dist/main.js`): wall time from the command
 * to a 200 on `/health`, the process's CPU time and peak RSS at that moment, and its RSS once idle,
 * on a new and on an existing embedded database (and on Postgres when a server answers), medians of
 * `runs` starts each; and the first and second `pnpm start` in a new clone of the repository, the way a
 * newcomer runs it. `pnpm bench --startup` prints only these; `pnpm bench` prints them at the end.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { nodeFlags } from "@modpack/server/node-flags";
import pg from "pg";
import { databaseUrlOf } from "./databases.js";
import { median } from "./load.js";
import { buildServer, cpuMsOf, memoryOf, repoRoot } from "./processes.js";

export const serverEntry = path.join(repoRoot, "apps/server/dist/main.js");
/** The node flags of `pnpm start` (apps/server/package.json); `BENCH_START_FLAGS` tries others. */
export const startFlags = process.env.BENCH_START_FLAGS?.split(" ").filter(Boolean) ?? [...nodeFlags];

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

/** Polls /health every 20 ms until a 200; throws when `child` exits first or nothing answers in 120 s. */
async function untilHealthy(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${output().slice(-2000)}`);
    if (Date.now() > deadline)
      throw new Error(`the server did not answer /health within 120 s: ${output().slice(-2000)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Stops a child spawned `detached` (its own process group): `signal` to the group, SIGKILL after 30 s,
 * and waits until the child has exited and no process of the group is left.
 */
async function stopGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const pid = child.pid;
  if (!pid) return;
  const kill = (to: NodeJS.Signals | 0) => {
    try {
      process.kill(-pid, to);
      return true;
    } catch {
      return false; // ESRCH: the group is empty
    }
  };
  if (!kill(signal)) return;
  const timer = setTimeout(() => kill("SIGKILL"), 30_000);
  await exited(child);
  while (kill(0)) await new Promise((resolve) => setTimeout(resolve, 20));
  clearTimeout(timer);
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
    await untilHealthy(port, child, () => stderr);
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
        const url = databaseUrlOf(adminUrl, name);
        cold.push(await measureStart({ DATABASE_URL: url }));
        warm.push(await measureStart({ DATABASE_URL: url }));
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
      target: `embedded start (${label}): idle RSS ≤ 230 MB`,
      pass: median.idleRssMb <= 230,
      detail: `${median.idleRssMb.toFixed(0)} MB`,
    });
  }
  return targets;
}

export interface StartupResults {
  starts: StartSeries[];
  freshClone: FreshCloneStart[];
}

/**
 * `pnpm bench --startup`: builds the server when its build is stale (turbo), then measures `runs`
 * starts of each kind, Postgres ones when `adminUrl` answers, and `freshCloneRuns` fresh clones.
 */
export async function runStartupBench(
  adminUrl: string | undefined,
  runs: number,
  freshCloneRuns: number,
  log: (line: string) => void,
): Promise<StartupResults> {
  await buildServer();
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
  const freshClone = await measureFreshCloneStarts(freshCloneRuns, log);
  if (freshClone.length > 0) for (const line of describeFreshCloneStarts(freshClone)) log(line);
  return { starts: all, freshClone };
}

export interface RestartFigures {
  /** From the save to tsx's notice: the old server logs "shutting down". */
  noticeMs: number;
  /** From the save to the old server's "stopped". */
  stoppedMs: number;
  /** From the save to the first 200 on /health from the new server. */
  wallMs: number;
}

/** The source file a restart run saves (unchanged content: tsx watch restarts on the write). */
export const devTouchedFile = path.join(repoRoot, "apps/server/src/config.ts");

/**
 * `pnpm dev`'s restart: starts the dev stack (`apps/server/dev/dev.ts`, the package's `dev` script) on
 * a new embedded database, then `runs` times rewrites a server source file with its own content and
 * times the restart: tsx watch's notice (the old server begins its shutdown), the old server stopped,
 * and the first 200 on `/health` after the new server logged its start.
 */
export async function measureDevRestarts(runs: number): Promise<RestartFigures[]> {
  const root = mkdtempSync(path.join(os.tmpdir(), "mcs-bench-dev-"));
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@modpack/source", "dev/dev.ts"], {
    cwd: path.join(repoRoot, "apps/server"),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      STEAM_STAND_IN_PORT: "0",
      DATA_DIR: path.join(root, "data"),
      LOG_LEVEL: "info",
    },
    // Its own process group, so the whole stack is stopped together.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const events: { at: number; text: string }[] = [];
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    events.push({ at: performance.now(), text });
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const count = (pattern: RegExp) => (output.match(pattern) ?? []).length;
  const firstAfter = (since: number, pattern: RegExp) =>
    events.find((event) => event.at >= since && pattern.test(event.text))?.at;
  const waitFor = async (done: () => boolean, what: string) => {
    const deadline = Date.now() + 120_000;
    while (!done()) {
      if (child.exitCode !== null) throw new Error(`pnpm dev exited before ${what}: ${output.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`pnpm dev: no ${what} within 120 s: ${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const health = () =>
    fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.status === 200,
      () => false,
    );
  const started = /"startupMs":\d+/g;
  const figures: RestartFigures[] = [];
  try {
    await waitFor(() => count(started) >= 1, "first start");
    const source = readFileSync(devTouchedFile);
    for (let index = 0; index < runs; index += 1) {
      // Let the previous start settle (its first jobs, the compile cache) before the next save.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const before = count(started);
      const saved = performance.now();
      writeFileSync(devTouchedFile, source);
      await waitFor(() => count(started) > before, "restart");
      while (!(await health())) {
        if (child.exitCode !== null) throw new Error(`pnpm dev exited during a restart: ${output.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      figures.push({
        noticeMs: (firstAfter(saved, /shutting down/) ?? Number.NaN) - saved,
        stoppedMs: (firstAfter(saved, /"msg":"stopped"/) ?? Number.NaN) - saved,
        wallMs: performance.now() - saved,
      });
    }
  } finally {
    await stopGroup(child, "SIGINT");
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}

/** One line: medians of the restart's phases, then each run's wall time. */
export function describeDevRestarts(runs: RestartFigures[]): string {
  const walls = runs.map((run) => (run.wallMs / 1000).toFixed(2)).join(", ");
  const seconds = (values: number[]) => (median(values) / 1000).toFixed(2);
  return `${"pnpm dev, restart on a save".padEnd(30)} wall ${seconds(runs.map((run) => run.wallMs))} s to /health (old server stopped after ${seconds(runs.map((run) => run.stoppedMs))} s; median of ${runs.length}; walls ${walls} s; load average ${os.loadavg()[0]?.toFixed(2)})`;
}

export function devRestartTarget(runs: RestartFigures[]): { target: string; pass: boolean; detail: string } {
  const wall = median(runs.map((run) => run.wallMs));
  return { target: "pnpm dev restart ≤ 2 s", pass: wall <= 2000, detail: `${(wall / 1000).toFixed(2)} s` };
}

export interface FreshCloneStart {
  /** From spawning `pnpm start` in a new clone to the first 200 on /health: the build included. */
  firstMs: number;
  /** The same again in that clone with nothing changed. */
  secondMs: number;
}

const runCommand = promisify(execFile);

/** What `pnpm` needs in a minimal environment: PATH, HOME and the CA settings when they are set. */
function pnpmEnv(): Record<string, string> {
  const names = ["PATH", "HOME", "NODE_EXTRA_CA_CERTS", "npm_config_cafile"];
  return Object.fromEntries(names.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
}

/** Spawns `pnpm start` at `cwd` in its own process group; answers the ms to the first 200 on /health, then stops it. */
async function timePnpmStart(cwd: string, dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn("pnpm", ["start"], {
    cwd,
    env: {
      ...pnpmEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  try {
    await untilHealthy(port, child, () => output);
    return performance.now() - started;
  } finally {
    await stopGroup(child, "SIGTERM");
  }
}

/**
 * `runs` times: `git clone` of the repository at HEAD into a new temp directory, `pnpm install
 * --frozen-lockfile --offline` there (online when offline fails; not timed), then the first
 * `pnpm start` (the build included) and a second one with nothing changed, each to /health.
 */
export async function measureFreshCloneStarts(runs: number, log: (line: string) => void): Promise<FreshCloneStart[]> {
  const figures: FreshCloneStart[] = [];
  for (let index = 0; index < runs; index += 1) {
    const root = mkdtempSync(path.join(os.tmpdir(), "mcs-bench-clone-"));
    try {
      const clone = path.join(root, "repo");
      await runCommand("git", ["clone", "--quiet", repoRoot, clone]);
      const install = ["install", "--frozen-lockfile"];
      await runCommand("pnpm", [...install, "--offline"], { cwd: clone, env: pnpmEnv() }).catch(() => {
        log("fresh clone: the offline install failed; installing online");
        return runCommand("pnpm", install, { cwd: clone, env: pnpmEnv(), maxBuffer: 16 * 1024 * 1024 });
      });
      const dataDir = path.join(root, "data");
      const firstMs = await timePnpmStart(clone, dataDir);
      const secondMs = await timePnpmStart(clone, dataDir);
      figures.push({ firstMs, secondMs });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return figures;
}

/** Two lines, first and second `pnpm start`: medians, then each run's wall time. */
export function describeFreshCloneStarts(runs: FreshCloneStart[]): string[] {
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  const line = (label: string, walls: number[], note = "") =>
    `${label.padEnd(30)} wall ${seconds(median(walls))} s to /health${note} (median of ${walls.length}; walls ${walls.map(seconds).join(", ")} s; load average ${os.loadavg()[0]?.toFixed(2)})`;
  return [
    line(
      "first pnpm start, fresh clone",
      runs.map((run) => run.firstMs),
      ", build included",
    ),
    line(
      "second pnpm start, fresh clone",
      runs.map((run) => run.secondMs),
    ),
  ];
}

export function freshCloneTargets(runs: FreshCloneStart[]): { target: string; pass: boolean; detail: string }[] {
  if (runs.length === 0) return [];
  const first = median(runs.map((run) => run.firstMs));
  const second = median(runs.map((run) => run.secondMs));
  return [
    {
      target: "first pnpm start on a fresh clone ≤ 15 s",
      pass: first <= 15_000,
      detail: `${(first / 1000).toFixed(2)} s`,
    },
    {
      target: "second pnpm start on a fresh clone ≤ 2 s",
      pass: second <= 2000,
      detail: `${(second / 1000).toFixed(2)} s`,
    },
  ];
}
