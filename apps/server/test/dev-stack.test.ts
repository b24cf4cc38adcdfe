import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_COLLECTION_ID, demoWorkshop, demoWorkshopMods } from "../dev/demo-workshop.js";
import { type SteamStandIn, startSteamStandIn } from "../dev/steam-api.js";
import { demoMods } from "../src/cli/seed.js";
import { createWorkshopClient, type WorkshopItemResult } from "../src/workshop/client.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { freePort } from "./support/net.js";
import { exitOf } from "./support/process.js";
import { workshopUrl } from "./support/workshop.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const COLLECTION_ITEMS = ["3100000002", "3100000003", "3100000007", "3100000009", "3100000013"];

describe("the demo workshop the stand-in serves", () => {
  let standIn: SteamStandIn;
  /** What the workshop client reads: without a key (GetPublishedFileDetails) and with one (GetDetails, with required items). */
  const results = { keyless: new Map<string, WorkshopItemResult>(), keyed: new Map<string, WorkshopItemResult>() };

  beforeAll(async () => {
    standIn = await startSteamStandIn(demoWorkshop());
    const ids = demoWorkshopMods.map((mod) => mod.workshopId);
    for (const [kind, apiKey] of [
      ["keyless", undefined],
      ["keyed", "any-key"],
    ] as const) {
      const client = createWorkshopClient({ baseUrl: standIn.url, maxRetries: 0, ...(apiKey ? { apiKey } : {}) });
      for (const result of await client.getItems(ids)) {
        results[kind].set(result.ok ? result.item.workshopId : result.workshopId, result);
      }
    }
  });
  afterAll(() => standIn?.close());

  // The service reads each seeded item back as the seed stored it, so refreshing one changes nothing.
  it.each(
    demoWorkshopMods.flatMap((mod) => [
      [mod.workshopId, mod.title, "keyless", mod] as const,
      [mod.workshopId, mod.title, "keyed", mod] as const,
    ]),
  )("serves %s (%s), read %s, as the demo catalogue describes it", (workshopId, _title, kind, mod) => {
    const result = results[kind].get(workshopId);
    expect(result?.ok).toBe(true);
    if (!result?.ok) return;
    expect(result.item).toMatchObject({
      workshopId,
      title: mod.title,
      description: mod.description,
      previewUrl: null,
      tags: mod.tags,
      timeUpdated: mod.timeUpdated,
      platformModIds: mod.platformModIds,
      mapFolders: mod.mapFolders,
      // Only GetDetails (which needs a key) lists required items.
      requiredWorkshopIds: kind === "keyed" ? mod.requiredWorkshopIds : [],
      rejectedValues: [],
    });
  });

  it("serves every seeded mod, and a collection of demo items", async () => {
    expect(demoMods.every((mod) => results.keyless.get(mod.workshopId)?.ok)).toBe(true);
    expect(demoWorkshopMods.some((mod) => mod.requiredWorkshopIds.length > 0)).toBe(true);
    const client = createWorkshopClient({ baseUrl: standIn.url, maxRetries: 0 });
    expect(await client.expandCollection(DEMO_COLLECTION_ID)).toEqual({
      ok: true,
      itemIds: COLLECTION_ITEMS,
      nestedCollections: [],
    });
  });
});

/** Resolves with the first match of `pattern` in what the process writes; rejects if it exits first. */
function waitForOutput(child: ChildProcess, output: () => string, pattern: RegExp, timeoutMs: number) {
  return new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = () => {
      const match = output().match(pattern);
      if (!match) return;
      finish();
      resolve(match);
    };
    const exited = () => {
      finish();
      reject(new Error(`pnpm dev exited before ${pattern}:\n${output()}`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      child.stdout?.off("data", check);
      child.stderr?.off("data", check);
      child.off("exit", exited);
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", exited);
    check();
  });
}

/** True once nothing accepts connections on the port. */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

describe("pnpm dev", () => {
  let database: TestDatabase;
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), "mcs-dev-stack-"));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT");
      await exitOf(child);
    }
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("starts the stand-in, the webhook receiver and the seeded server, adds and imports mods offline, shows a signed event, and stops them all on SIGINT", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The command of the package's `dev` script.
    child = spawn(process.execPath, ["--import", "tsx", "--conditions=@modpack/source", "dev/dev.ts"], {
      cwd: serverRoot,
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        PUBLIC_URL: base,
        STEAM_STAND_IN_PORT: "0",
        WEBHOOK_RECEIVER_PORT: "0",
        DATA_DIR: dataDir,
        LOG_LEVEL: "info",
        ...(database.url ? { DATABASE_URL: database.url } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    const started = child;

    const [, receiverUrl] = await waitForOutput(started, () => output, /Webhook receiver: (http:\/\/\S+)/, 60_000);
    const [, standInUrl] = await waitForOutput(started, () => output, /stand-in: (http:\/\/\S+)/, 60_000);
    await waitForOutput(started, () => output, /"startupMs":\d+/, 120_000);
    expect(output).toContain("Seeded 12 mods, 3 users and 3 public modpacks");
    expect((await fetch(`${base}/health`)).status).toBe(200);

    // Sign in through the development identity provider, as a browser does.
    const start = await fetch(`${base}/auth/idp`, { redirect: "manual" });
    expect(start.status).toBe(302);
    const stateCookie = start.headers.getSetCookie().map((cookie) => cookie.split(";")[0] ?? "");
    const form = new URLSearchParams(new URL(String(start.headers.get("location"))).search);
    form.set("name", "Front-end Developer");
    form.set("email", "frontend@example.com");
    const submitted = await fetch(`${base}/dev-idp/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
      body: form.toString(),
    });
    expect(submitted.status).toBe(302);
    const callback = await fetch(String(submitted.headers.get("location")), {
      redirect: "manual",
      headers: { cookie: stateCookie.join("; ") },
    });
    const session = callback.headers.getSetCookie().find((cookie) => cookie.startsWith("svcauth.session_token="));
    expect(session).toBeDefined();
    const headers = { cookie: String(session).split(";")[0] ?? "", origin: base, "content-type": "application/json" };
    const api = async <T = Record<string, unknown>>(method: string, url: string, body?: unknown) => {
      const response = await fetch(`${base}${url}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as T };
    };

    const seeded = await api<{ data: { name: string }[] }>("GET", "/modpacks/public?sortBy=name&sortOrder=asc");
    expect(seeded.body.data.map((modpack) => modpack.name)).toEqual([
      "Build 42 Quality of Life",
      "Hard Survival",
      "Kentucky Roadtrip",
    ]);

    const modpack = await api<{ id: string }>("POST", "/modpacks", { name: "Offline pack" });
    expect(modpack.status, JSON.stringify(modpack.body)).toBe(201);
    const modpackId = modpack.body.id;

    // A seeded mod by workshop id, and one only the stand-in knows (read from it through WORKSHOP_API_URL).
    const seededMod = await api("POST", `/modpacks/${modpackId}/mods`, { modAtribute: "3100000001" });
    expect(seededMod.status, JSON.stringify(seededMod.body)).toBe(201);
    // The walkthrough's and examples/' items too.
    for (const reference of [workshopUrl("3100000014"), workshopUrl("2169435993"), "2392709985"]) {
      const added = await api("POST", `/modpacks/${modpackId}/mods`, { modAtribute: reference });
      expect(added.status, `${reference}: ${JSON.stringify(added.body)}`).toBe(201);
    }

    const imported = await api("POST", `/modpacks/${modpackId}/import`, {
      platformUrl: workshopUrl(DEMO_COLLECTION_ID),
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(202);
    const deadline = Date.now() + 60_000;
    const importStatus = () => api<{ status: string }>("GET", `/modpacks/${modpackId}/import/status`);
    let status = await importStatus();
    while (status.body.status !== "completed" && status.body.status !== "failed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await importStatus();
    }
    expect(status.body.status, JSON.stringify(status.body)).toBe("completed");

    const mods = await api<{ data: { workshopId: string }[] }>("GET", `/modpacks/${modpackId}/mods?limit=100`);
    expect(mods.status, JSON.stringify(mods.body)).toBe(200);
    const workshopIds = mods.body.data.map((mod) => mod.workshopId).sort();
    expect(workshopIds).toEqual(["3100000001", "3100000014", "2169435993", "2392709985", ...COLLECTION_ITEMS].sort());

    // A webhook to the printed receiver; an update published on the stand-in and a refresh that finds it.
    const webhook = await api<{ secret: string }>("POST", `/modpacks/${modpackId}/webhooks`, { url: receiverUrl });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    const published = await fetch(`${standInUrl}/dev/publish-update/3100000001`, { method: "POST" });
    expect(published.status).toBe(200);
    const listed = await api<{ data: { id: string; workshopId: string }[] }>(
      "GET",
      `/modpacks/${modpackId}/mods?limit=100`,
    );
    const updatedMod = listed.body.data.find((mod) => mod.workshopId === "3100000001");
    const refreshed = await api("POST", `/mods/${updatedMod?.id}/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    await waitForOutput(
      started,
      () => output,
      /\[webhook\] \/hook mods\.updated webhook-id=msg_\S+ webhook-timestamp=\d+ webhook-signature=v1,/,
      60_000,
    );

    started.kill("SIGINT");
    expect(await exitOf(started)).toBe(0);
    expect(await refuses(port)).toBe(true);
    expect(await refuses(Number(new URL(String(standInUrl)).port))).toBe(true);
    expect(await refuses(Number(new URL(String(receiverUrl)).port))).toBe(true);
  }, 240_000);
});
