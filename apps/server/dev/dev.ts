/**
 * `pnpm dev`: a local stack for front-end work, offline and with no Steam key. Starts the Steam Web
 * API stand-in (dev/steam-stand-in.ts) as its own process, seeds the database when it has no users
 * yet (before the server opens it: the embedded database serves one process), then the server in
 * watch mode with WORKSHOP_API_URL pointing at the stand-in; everything else is the production path.
 * A webhook receiver on 127.0.0.1 (WEBHOOK_RECEIVER_PORT, default 3002) prints every delivery it gets,
 * and the server allows such loopback targets (WEBHOOK_ALLOW_PRIVATE_TARGETS=true unless set).
 * Ctrl-C (SIGINT) or SIGTERM stops both and exits 0 once they have stopped.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { seedDemo } from "../src/cli/seed.js";
import { ConfigError, envFiles, loadConfig, readEnvFiles } from "../src/config.js";
import { DatabaseInUseError, openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { nodeFlags } from "../src/node-flags.js";
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");
const children = new Set<ChildProcess>();

/** A failure the person running `pnpm dev` can fix: one line, no stack. */
class DevError extends Error {}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return once(child, "exit").then(() => undefined);
}

/** Starts the stand-in and answers its URL once it listens. */
async function startStandIn(): Promise<{ child: ChildProcess; url: string }> {
  // Its own process group: a Ctrl-C in the terminal reaches this process alone, which stops the children once.
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@modpack/source", "dev/steam-stand-in.ts"], {
    cwd: serverRoot,
    detached: true,
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  children.add(child);
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => {
      const url = line.match(/listening on (http:\/\/\S+)/)?.[1];
      if (url) resolve(url);
      else reject(new DevError(`The Steam Web API stand-in said: ${line}`));
    });
    child.once("exit", () => reject(new DevError("The Steam Web API stand-in did not start")));
  });
  const url = await ready;
  process.stdout.write(`Steam Web API stand-in: ${url} (WORKSHOP_API_URL of the server)\n`);
  lines.on("line", (line) => process.stdout.write(`[steam] ${line}\n`));
  return { child, url };
}

const DEFAULT_RECEIVER_PORT = 3002;

/** One line per delivery: the event, its id and signature headers, and the start of its body. */
function printDelivery(delivery: ReceivedDelivery): void {
  const header = (name: string) => String(delivery.headers[name] ?? "-");
  let type = "?";
  try {
    type = String(
      (JSON.parse(delivery.body) as { type?: unknown }).type ?? (delivery.body.includes('"embeds"') ? "discord" : "?"),
    );
  } catch {
    // Not JSON: printed as it came.
  }
  process.stdout.write(
    `[webhook] ${delivery.path} ${type} webhook-id=${header("webhook-id")} webhook-timestamp=${header("webhook-timestamp")} webhook-signature=${header("webhook-signature")}\n[webhook] ${delivery.body.slice(0, 600)}\n`,
  );
}

/** The receiver webhooks of the walkthrough post to; it answers 200 to everything. */
async function startReceiver(): Promise<WebhookReceiver> {
  const portText = process.env.WEBHOOK_RECEIVER_PORT ?? String(DEFAULT_RECEIVER_PORT);
  if (!/^\d+$/.test(portText) || Number(portText) > 65_535) {
    throw new DevError(`Invalid WEBHOOK_RECEIVER_PORT=${JSON.stringify(portText)}: use a port number`);
  }
  try {
    const receiver = await startWebhookReceiver({ port: Number(portText), onDelivery: printDelivery });
    process.stdout.write(`Webhook receiver: ${receiver.url("/hook")} (any path; prints what it receives)\n`);
    return receiver;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    throw new DevError(
      `Port ${portText} on 127.0.0.1 is already in use: stop that process or set WEBHOOK_RECEIVER_PORT for the webhook receiver`,
    );
  }
}

/** Seeds the demo data when the database has no users (a fresh database); the server is not running yet. */
async function seedIfEmpty(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    const { count } = await database.db
      .selectFrom("users")
      .select(sql<number>`count(*)::int`.as("count"))
      .executeTakeFirstOrThrow();
    if (count > 0) return;
    const result = await seedDemo(database.db);
    process.stdout.write(
      `Seeded ${result.mods} mods, ${result.users} users and ${result.modpacks} public modpacks (the database had no users).\n`,
    );
  } finally {
    await database.close();
  }
}

/**
 * The server under `tsx watch`, with the node flags of `pnpm start` (tsx passes them on to each run):
 * without `--liftoff-only`, V8 would recompile the embedded database's WebAssembly with its
 * optimizing compiler on every restart, work a restart only waits for.
 */
function startServer(workshopApiUrl: string): ChildProcess {
  const args = [tsxCli, "watch", ...nodeFlags, "--conditions=@modpack/source"];
  const child = spawn(process.execPath, [...args, "src/main.ts"], {
    cwd: serverRoot,
    detached: true,
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      ...process.env,
      WORKSHOP_API_URL: workshopApiUrl,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  children.add(child);
  return child;
}

let stopping: Promise<void> | undefined;
let receiver: WebhookReceiver | undefined;

/** Stops every child (one signal each; tsx watch passes it on to the server) and waits for them, then the receiver. */
function stopAll(): Promise<void> {
  stopping ??= Promise.all(
    [...children].map((child) => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      return exited(child);
    }),
  ).then(() => receiver?.close());
  return stopping;
}

// A child left behind when this process ends some other way.
process.on("exit", () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

let stopRequested = false;
const signalled = new Promise<"signal">((resolve) => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      stopRequested = true;
      resolve("signal");
      void stopAll();
    });
  }
});

async function main(): Promise<number> {
  readEnvFiles(envFiles());
  receiver = await startReceiver();
  const standIn = await startStandIn();
  if (!stopRequested) await seedIfEmpty();
  if (stopRequested) {
    await stopAll();
    return 0;
  }
  const server = startServer(standIn.url);
  const first = await Promise.race([
    signalled,
    exited(server).then(() => "server" as const),
    exited(standIn.child).then(() => "stand-in" as const),
  ]);
  await stopAll();
  if (first === "signal") return 0;
  process.stderr.write(`The ${first === "server" ? "server" : "Steam Web API stand-in"} stopped; stopped the rest.\n`);
  return 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    await stopAll();
    if (error instanceof ConfigError || error instanceof DatabaseInUseError || error instanceof DevError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      process.stderr.write(
        `pnpm dev failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    process.exitCode = 1;
  },
);
