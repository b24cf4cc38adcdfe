/** The measurements beside the load table: the 1,200-item import and server-file latency. */
import { type FakeSteam, fakeItem } from "@modpack/server/test/fixtures/steam-api";
import { median, percentile } from "./load.js";

const DETAILS = "ISteamRemoteStorage/GetPublishedFileDetails/v1";
const COLLECTIONS = "ISteamRemoteStorage/GetCollectionDetails/v1";

async function call(
  base: string,
  cookie: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: () => Promise<Record<string, unknown>> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: () => response.json() as Promise<Record<string, unknown>> };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ImportResult {
  seconds: number;
  detailCalls: number;
  collectionCalls: number;
  modsImported: number;
  modsFailed: number;
  status: string;
}

/** Imports a fake 1,200-item collection into a new modpack, through the HTTP API, timing request → completed. */
export async function measureImport(
  base: string,
  cookie: string,
  steam: FakeSteam,
  items = 1200,
): Promise<ImportResult> {
  steam.reset();
  const ids = Array.from({ length: items }, (_, index) => String(100_000 + index));
  for (const id of ids) steam.items.set(id, fakeItem(id));
  steam.collections.set("8000", ids);
  const created = await call(base, cookie, "POST", "/modpacks", { name: "Bench import target" });
  if (created.status !== 201) throw new Error(`POST /modpacks answered ${created.status}`);
  const modpackId = (await created.json()).id as string;
  const started = performance.now();
  const response = await call(base, cookie, "POST", `/modpacks/${modpackId}/import`, {
    platformUrl: "https://steamcommunity.com/sharedfiles/filedetails/?id=8000",
  });
  if (response.status !== 202) throw new Error(`POST /modpacks/{id}/import answered ${response.status}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await call(base, cookie, "GET", `/modpacks/${modpackId}/import/status`);
    const body = await status.json();
    if (body.status === "completed" || body.status === "failed") {
      return {
        seconds: (performance.now() - started) / 1000,
        detailCalls: steam.calls.filter((entry) => entry.endpoint === DETAILS).length,
        collectionCalls: steam.calls.filter((entry) => entry.endpoint === COLLECTIONS).length,
        modsImported: Number(body.modsImported),
        modsFailed: Number(body.modsFailed),
        status: String(body.status),
      };
    }
    if (Date.now() > deadline) throw new Error(`import still ${String(body.status)} after 120 s`);
    await sleep(25);
  }
}

export interface ServerFileResult {
  count: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  minMs: number;
}

/** Requests `count` server files one after another; each is timed from the request until its download answers 200. */
export async function measureServerFile(
  base: string,
  cookie: string,
  modpackId: string,
  count = 50,
  pollMs = 10,
): Promise<ServerFileResult> {
  const timings: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const requested = await call(base, cookie, "POST", `/modpacks/${modpackId}/server-file`, {
      version: index % 2 === 0 ? "41x" : "42x",
    });
    if (requested.status !== 202) throw new Error(`POST /modpacks/{id}/server-file answered ${requested.status}`);
    const exportId = (await requested.json()).exportId as string;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const download = await fetch(`${base}/modpacks/export/${exportId}/download`, { headers: { cookie } });
      await download.arrayBuffer();
      if (download.status === 200) break;
      if (download.status !== 409) throw new Error(`download answered ${download.status}`);
      if (Date.now() > deadline) throw new Error(`export ${exportId} not downloadable after 30 s`);
      await sleep(pollMs);
    }
    timings.push(performance.now() - started);
  }
  const sorted = [...timings].sort((a, b) => a - b);
  return {
    count,
    medianMs: median(timings),
    p95Ms: percentile(sorted, 0.95),
    maxMs: sorted.at(-1) ?? 0,
    minMs: sorted[0] ?? 0,
  };
}

export interface RevalidationResult {
  count: number;
  bytes: number;
  /** Full answers (no `If-None-Match`). */
  fullP50Ms: number;
  fullP95Ms: number;
  /** `If-None-Match` with the current ETag: 304s. */
  notModifiedP50Ms: number;
  notModifiedP95Ms: number;
}

/**
 * A read as a client that keeps its answer fetches it (a start script its server file, a page the
 * modpack's check): `count` sequential full reads, then `count` sequential revalidations with the
 * ETag the first answered (each must be a 304).
 */
export async function measureRevalidation(url: string, cookie: string, count = 200): Promise<RevalidationResult> {
  const time = async (headers: Record<string, string>, expected: number) => {
    const started = performance.now();
    const response = await fetch(url, { headers: { cookie, ...headers } });
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== expected) throw new Error(`GET ${url} answered ${response.status}, not ${expected}`);
    return { elapsed, body, etag: response.headers.get("etag") ?? "" };
  };
  const first = await time({}, 200);
  const full: number[] = [];
  for (let index = 0; index < count; index++) full.push((await time({}, 200)).elapsed);
  const notModified: number[] = [];
  for (let index = 0; index < count; index++) {
    notModified.push((await time({ "if-none-match": first.etag }, 304)).elapsed);
  }
  full.sort((a, b) => a - b);
  notModified.sort((a, b) => a - b);
  return {
    count,
    bytes: Buffer.byteLength(first.body),
    fullP50Ms: percentile(full, 0.5),
    fullP95Ms: percentile(full, 0.95),
    notModifiedP50Ms: percentile(notModified, 0.5),
    notModifiedP95Ms: percentile(notModified, 0.95),
  };
}
