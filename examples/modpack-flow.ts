/**
 * The whole flow of the Modpack Collection Service through `@modpack/client`, as a script:
 * create a modpack, add mods, import a workshop collection (with progress and live notifications),
 * reorder the load order, generate a 42x `servertest.ini` and download it.
 *
 *   MODPACK_URL=http://localhost:3000 MODPACK_TOKEN=mcs_... \
 *   COLLECTION_URL='https://steamcommunity.com/sharedfiles/filedetails/?id=...' \
 *   pnpm --filter @modpack/examples flow
 *
 * Environment:
 *   MODPACK_URL     where the service runs (default http://localhost:3000)
 *   MODPACK_TOKEN   an API token (POST /auth/tokens); required
 *   COLLECTION_URL  a Steam Workshop collection to import; the import is skipped without it
 *   MOD_URL         a workshop item added by URL (default: Mod Options, 2169435993)
 *   MOD_ID          a workshop item added by id (default: Tsar's Common Library, 2392709985)
 *   MODPACK_NAME    the new modpack's name (default "Example flow <date and time>")
 *
 * The file is saved as `<modpack-slug>-42x.ini` in the directory the command was started from.
 * Exits 1 (after printing the service's error) when a step fails.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import {
  type ApiError,
  createClient,
  type ExportStatus,
  type ImportStatus,
  type Notification,
  toApiError,
} from "@modpack/client";
import { EventSource } from "eventsource";

const baseUrl = (process.env.MODPACK_URL || "http://localhost:3000").replace(/\/+$/, "");
const token = process.env.MODPACK_TOKEN ?? "";
const collectionUrl = process.env.COLLECTION_URL ?? "";
const modUrl = process.env.MOD_URL || "https://steamcommunity.com/sharedfiles/filedetails/?id=2169435993";
const modId = process.env.MOD_ID || "2392709985";
const modpackName =
  process.env.MODPACK_NAME || `Example flow ${new Date().toISOString().slice(0, 19).replace("T", " ")}`;
/** pnpm and npm run scripts in the package's folder and say where they were started from in INIT_CWD. */
const outputDirectory = process.env.INIT_CWD || process.cwd();

const POLL_MS = 500;
const IMPORT_TIMEOUT_MS = 10 * 60_000;
const EXPORT_TIMEOUT_MS = 2 * 60_000;

const client = createClient({ baseUrl, token, EventSource });

/** Everyone waiting for a notification (the export waits for "Server file ready"). */
const notificationWaiters = new Set<(notification: Notification) => void>();

/** A failure of this script itself (no token, a timeout), printed as it is rather than as the service's error. */
class FlowError extends Error {}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `promise`'s value, or `fallback` after `ms`; the timer is cleared either way, so it never holds the process open. */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function metadataOf(notification: Notification): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(notification.metadata);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Subscribes to live notifications (Server-Sent Events) and prints each; resolves once connected. */
async function listenToNotifications(): Promise<() => void> {
  let stop: () => void = () => {};
  const connected = new Promise<boolean>((resolve) => {
    stop = client.onNotification(
      (notification) => {
        console.log(`notification: [${notification.type}] ${notification.title}: ${notification.content}`);
        for (const waiter of notificationWaiters) waiter(notification);
      },
      {
        onStarted: () => resolve(true),
        onError: (error) => {
          console.error(`notifications: stream ended: ${toApiError(error).message}`);
          resolve(false);
        },
      },
    );
  });
  const ok = await within(connected, 10_000, false);
  console.log(ok ? "notifications: listening" : "notifications: not connected; relying on status polling");
  return stop;
}

function progressLine(status: ImportStatus): string {
  const progress = status.progress ? ` ${status.progress.done}/${status.progress.total} items` : "";
  return `import: ${status.status}${progress} (imported ${status.modsImported}, failed ${status.modsFailed})`;
}

/** Starts the import and prints a progress line whenever the status changes, until it ends. */
async function importCollection(modpackId: string, url: string): Promise<ImportStatus> {
  const started = await client.imports.start.mutate({ id: modpackId, platformUrl: url });
  console.log(`import: started ${started.importId}`);
  const deadline = Date.now() + IMPORT_TIMEOUT_MS;
  let last = "";
  for (;;) {
    const status = await client.imports.status.query({ id: modpackId });
    const line = progressLine(status);
    if (line !== last) console.log(line);
    last = line;
    if (status.status === "completed" || status.status === "failed") return status;
    if (Date.now() > deadline) throw new FlowError(`import still ${status.status} after ${IMPORT_TIMEOUT_MS / 1000} s`);
    await sleep(POLL_MS);
  }
}

/**
 * Waits until the export is done: the "Server file ready" (or "...failed") notification for this
 * export, or a status poll every two seconds should the notification not come.
 */
async function waitForExport(exportId: string): Promise<ExportStatus> {
  let notified: () => void = () => {};
  const notification = new Promise<void>((resolve) => {
    notified = resolve;
  });
  const waiter = (item: Notification) => {
    if (metadataOf(item).exportId === exportId) notified();
  };
  notificationWaiters.add(waiter);
  try {
    const deadline = Date.now() + EXPORT_TIMEOUT_MS;
    for (;;) {
      const status = await client.exports.status.query({ exportId });
      if (status.status === "completed" || status.status === "failed") return status;
      if (Date.now() > deadline)
        throw new FlowError(`server file still ${status.status} after ${EXPORT_TIMEOUT_MS / 1000} s`);
      console.log(`server file: ${status.status}`);
      await within(notification, 2000, undefined);
    }
  } finally {
    notificationWaiters.delete(waiter);
  }
}

/** The error of a failed plain-HTTP answer, in the shape `toApiError` gives for client calls. */
async function httpError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string; code?: string } };
  const message = body.error?.message ?? (body as { message?: string }).message ?? `HTTP ${response.status}`;
  return { status: response.status, code: body.error?.code ?? `HTTP_${response.status}`, message };
}

/** `attachment; filename="my-pack-42x.ini"` → `my-pack-42x.ini` (never a path). */
function attachmentName(disposition: string | null): string | undefined {
  const name = disposition?.match(/filename="([^"]+)"/)?.[1];
  return name ? path.basename(name) : undefined;
}

/** Downloads the server file (a plain route, not a tRPC procedure) with the Bearer token and saves it. */
async function download(exportId: string, fallbackName: string): Promise<string> {
  const response = await fetch(`${baseUrl}/modpacks/export/${exportId}/download`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw await httpError(response);
  const fileName = attachmentName(response.headers.get("content-disposition")) ?? path.basename(fallbackName);
  const file = path.resolve(outputDirectory, fileName);
  await writeFile(file, await response.text(), "utf8");
  return file;
}

async function main(): Promise<void> {
  if (!token) {
    throw new FlowError(
      "MODPACK_TOKEN is not set: create an API token (POST /auth/tokens) and pass it in MODPACK_TOKEN",
    );
  }
  console.log(`service: ${baseUrl}`);
  const stopListening = await listenToNotifications();
  try {
    const modpack = await client.modpacks.create.mutate({
      name: modpackName,
      description: "Made by examples/modpack-flow.ts",
    });
    console.log(`modpack: created "${modpack.name}" (${modpack.id})`);

    const byUrl = await client.modpackMods.add.mutate({ id: modpack.id, modAtribute: modUrl });
    console.log(`mods: ${byUrl.created ? "added" : "already had"} ${modUrl} (mod ${byUrl.modId})`);
    const byId = await client.modpackMods.add.mutate({ id: modpack.id, modAtribute: modId });
    console.log(`mods: ${byId.created ? "added" : "already had"} workshop item ${modId} (mod ${byId.modId})`);

    if (collectionUrl) {
      const result = await importCollection(modpack.id, collectionUrl);
      if (result.status === "failed") console.log(`import: failed: ${result.error}`);
      for (const failure of result.failures) console.log(`import: skipped ${failure.workshopId} (${failure.reason})`);
    } else {
      console.log("import: skipped (set COLLECTION_URL to import a workshop collection)");
    }

    // Load order: the mod added by id first, then the others as they are.
    const current = await client.exports.getConfiguration.query({ id: modpack.id });
    const modsOrder = [byId.modId, ...current.modsOrder.filter((id) => id !== byId.modId)];
    const saved = await client.exports.saveConfiguration.mutate({
      id: modpack.id,
      modsOrder,
      modConfig: current.modConfig,
    });
    console.log(`export configuration: saved, ${saved.modsOrder.length} mods, ${byId.modId} loads first`);

    const requested = await client.exports.requestServerFile.mutate({ id: modpack.id, version: "42x" });
    console.log(`server file: requested ${requested.exportId}`);
    const done = await waitForExport(requested.exportId);
    if (done.status === "failed")
      throw new FlowError(`server file generation failed: ${done.error ?? "no reason given"}`);
    console.log(`server file: ${done.status}`);

    const file = await download(requested.exportId, done.fileName ?? `${modpack.id}-42x.ini`);
    console.log(`saved: ${file}`);
  } finally {
    stopListening();
  }
}

main().catch((error: unknown) => {
  process.exitCode = 1;
  if (error instanceof FlowError) {
    console.error(`error: ${error.message}`);
    return;
  }
  const apiError = toApiError(error);
  console.error(`error: ${apiError.message} (${apiError.code}${apiError.status ? `, HTTP ${apiError.status}` : ""})`);
  for (const issue of apiError.issues ?? []) console.error(`  ${issue.path || "(input)"}: ${issue.message}`);
});
