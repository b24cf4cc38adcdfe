import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The published client as a front-end gets it: built, packed with `pnpm pack`, and installed with
 * npm in a project outside the workspace. Shared by the tests that install the tarball.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const clientRoot = path.join(repoRoot, "packages/client");
const contractRoot = path.join(repoRoot, "packages/contract");

/** The TypeScript the workspace builds with: the apps outside it type-check with the same one. */
export const typescriptVersion = (
  JSON.parse(readFileSync(path.join(repoRoot, "node_modules/typescript/package.json"), "utf8")) as { version: string }
).version;

export interface Run {
  code: number | null;
  output: string;
}

/** The environment for child tools, without what `pnpm run` adds for its own script. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const key of Object.keys(env)) {
    if (
      /^(npm_(command|lifecycle_|package_|execpath|node_execpath)|npm_config_(user_agent|verify_deps)|pnpm_config_|pnpm_package_name$)/i.test(
        key,
      )
    ) {
      delete env[key];
    }
  }
  // Scripts run by npm (`#!/usr/bin/env node`) use this same Node.
  env.PATH = [path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter);
  return env;
}

/** Runs a command to its end and answers its exit code and everything it wrote (stdout and stderr). */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs: number },
): Promise<Run> {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: childEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} took longer than ${options.timeoutMs} ms:\n${output}`));
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** pnpm as the test runner was started by it, else from PATH. */
function pnpm(args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  const execPath = process.env.npm_execpath;
  return execPath && /pnpm/.test(path.basename(execPath))
    ? run(process.execPath, [execPath, ...args], { cwd, timeoutMs })
    : run("pnpm", args, { cwd, timeoutMs });
}

/** The newest modification time of the files under the given paths (0 when none exist). */
function newestMtime(paths: string[]): number {
  let newest = 0;
  for (const entry of paths) {
    if (!existsSync(entry)) continue;
    const stat = statSync(entry);
    newest = stat.isDirectory()
      ? Math.max(newest, newestMtime(readdirSync(entry).map((name) => path.join(entry, name))))
      : Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/** Builds the client unless its dist is newer than every source it is built from. */
async function ensureClientBuilt(): Promise<void> {
  const built = path.join(clientRoot, "dist/index.d.ts");
  const sources = newestMtime([
    path.join(clientRoot, "src"),
    path.join(clientRoot, "package.json"),
    path.join(clientRoot, "tsdown.config.ts"),
    path.join(clientRoot, "tsconfig.build.json"),
    path.join(contractRoot, "src"),
  ]);
  if (existsSync(built) && existsSync(path.join(clientRoot, "dist/index.js")) && statSync(built).mtimeMs >= sources) {
    return;
  }
  // Through turbo, so the contract the client bundles is built first.
  const build = await pnpm(
    ["exec", "turbo", "run", "build", "--filter=@modpack/client...", "--output-logs=errors-only"],
    repoRoot,
    180_000,
  );
  if (build.code !== 0) throw new Error(`building @modpack/client failed:\n${build.output}`);
}

/** Builds the client when its sources changed, packs it into `destination` and answers the tarball's path. */
export async function packClient(destination: string): Promise<string> {
  await ensureClientBuilt();
  const packed = await pnpm(["pack", "--pack-destination", destination], clientRoot, 60_000);
  if (packed.code !== 0) throw new Error(`pnpm pack failed:\n${packed.output}`);
  const name = (await readdir(destination)).find((file) => file.endsWith(".tgz"));
  if (!name) throw new Error(`pnpm pack wrote no tarball:\n${packed.output}`);
  return path.join(destination, name);
}

/** `npm install` in an app outside the workspace, from npm's cache when it has the packages. */
export function npmInstall(cwd: string, args: string[] = []): Promise<Run> {
  return run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", ...args], {
    cwd,
    timeoutMs: 180_000,
  });
}

/** `tsc -p <project>` with the TypeScript installed in the app. */
export function tsc(appDir: string, project = "tsconfig.json"): Promise<Run> {
  return run(process.execPath, [path.join(appDir, "node_modules/typescript/bin/tsc"), "-p", project], {
    cwd: appDir,
    timeoutMs: 120_000,
  });
}

/**
 * tsc's diagnostics, less the ones in tRPC 11.22.1's own declarations: its client's types import its
 * Node adapters, which name the `http`, `http2` and `ws` modules, and a browser app has no types for
 * those (11.25 no longer imports them). With `skipLibCheck: false` everything else must still be
 * clean: the app's code and the client's bundled declarations.
 */
export function typeErrors(output: string): string {
  return output
    .split("\n")
    .filter(
      (line) =>
        line.trim() !== "" &&
        !/^node_modules\/@trpc\/server\/dist\/[^(]+\(\d+,\d+\): error TS2307: Cannot find module '(http|http2|ws)'/.test(
          line,
        ),
    )
    .join("\n");
}
