import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { exitOf, startServiceProcess } from "./support/process.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

let database: TestDatabase;
let dataRoot: string;

beforeAll(async () => {
  database = await createTestDatabase();
  dataRoot = await mkdtemp(path.join(tmpdir(), "mcs-process-"));
});
afterAll(async () => {
  await database.drop();
  await rm(dataRoot, { recursive: true, force: true });
});

describe("the service process", () => {
  it("stops on SIGTERM after finishing, and exits on its own with code 0", async () => {
    const env: Record<string, string> = database.url
      ? { DATABASE_URL: database.url }
      : { DATA_DIR: path.join(dataRoot, "shutdown") };
    const started = await startServiceProcess(env);
    const health = await fetch(`http://127.0.0.1:${started.port}/health`);
    expect(await health.json()).toEqual({ message: "OK" });
    const stoppedAt = Date.now();
    started.child.kill("SIGTERM");
    // Exiting by itself (no process.exit on this path) proves nothing was left open.
    const code = await exitOf(started.child);
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(25_000);
    expect(started.output()).toContain('"msg":"stopped"');
  }, 90_000);

  it("creates DATA_DIR on the first start without DATABASE_URL and reuses it on the second", async () => {
    const dataDir = path.join(dataRoot, "embedded");
    expect(existsSync(dataDir)).toBe(false);
    const cold = await startServiceProcess({ DATA_DIR: dataDir });
    const created = await fetch(`http://127.0.0.1:${cold.port}/health/ready`);
    expect(created.status).toBe(200);
    cold.child.kill("SIGTERM");
    expect(await exitOf(cold.child)).toBe(0);
    expect(existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true);

    const warm = await startServiceProcess({ DATA_DIR: dataDir });
    expect(warm.output()).not.toContain("Applied");
    const ready = await fetch(`http://127.0.0.1:${warm.port}/health/ready`);
    expect(ready.status).toBe(200);
    warm.child.kill("SIGTERM");
    expect(await exitOf(warm.child)).toBe(0);
    process.stdout.write(`embedded database start: cold ${cold.startupMs} ms, warm ${warm.startupMs} ms\n`);
  }, 120_000);

  it("stops start-up with one clear line naming a bad variable", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@modpack/source", "src/main.ts"], {
      cwd: serverRoot,
      env: { PATH: process.env.PATH ?? "", PORT: "not-a-port" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exitOf(child)).toBe(1);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^Invalid configuration: PORT="not-a-port"/);
  }, 60_000);
});
