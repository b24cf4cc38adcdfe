import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeFlags } from "../../src/node-flags.js";
import { freePort } from "./net.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Everything the process has written so far (its JSON log lines, and any start-up error). */
  output: () => string;
  /** Start-up time as the service logs it (at LOG_LEVEL info), from process start to listening. */
  startupMs: number | null;
}

/** What `pnpm start` runs (apps/server/package.json): the built server with its node flags. */
export const builtEntry = [...nodeFlags, "dist/main.js"];

/**
 * The real entry point in a child process on a free port, once it is ready: its start-up log line,
 * or (when LOG_LEVEL hides it) `GET /health/ready` answering 200. From source (src/main.ts under
 * tsx), or with `built` the bundle `pnpm build` made, as `pnpm start` and the Docker image run it.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  options: { publicHost?: string; built?: boolean } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const publicUrl = `http://${options.publicHost ?? "127.0.0.1"}:${port}`;
  const entry = options.built ? builtEntry : ["--import", "tsx", "--conditions=@modpack/source", "src/main.ts"];
  const child = spawn(process.execPath, entry, {
    cwd: serverRoot,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const logsStartup = ["info", "debug", "trace"].includes(env.LOG_LEVEL ?? "info");
  // Generous: on a loaded 2-core machine a start from source with a new embedded database (every
  // migration run in WebAssembly, beside a browser test) has taken over a minute.
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    const match = output.match(/"startupMs":(\d+)/);
    if (match) return { child, port, base, output: () => output, startupMs: Number(match[1]) };
    if (child.exitCode !== null) break;
    const ready =
      !logsStartup &&
      (await fetch(`${base}/health/ready`).then(
        (response) => response.ok,
        () => false,
      ));
    if (ready) return { child, port, base, output: () => output, startupMs: null };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`the service did not start:\n${output}`);
}

/** The exit code (or the signal) of a child process, once it has exited. */
export function exitOf(child: ChildProcess): Promise<number | string | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
    else child.once("exit", (code, signal) => resolve(code ?? signal));
  });
}
