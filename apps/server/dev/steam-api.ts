/**
 * A stand-in for the three Steam Web API endpoints the service reads workshop items and collections
 * from, speaking their real protocol (form-encoded POSTs and GET query parameters, Steam's answers
 * and its failures). The tests start it in-process (test/fixtures/steam-api.ts); `pnpm dev` runs it
 * as its own process with the demo catalogue (dev/steam-stand-in.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

const PROJECT_ZOMBOID_APP_ID = 108600;
const COLLECTION_CREATOR_APP_ID = 766;
const RESULT_OK = 1;
const RESULT_FILE_NOT_FOUND = 9;

export interface StandInItem {
  workshopId: string;
  title: string;
  description: string;
  /** The preview image's URL; a path (the default) is one the stand-in serves itself. */
  previewUrl: string;
  /** Game the item is for. */
  consumerAppId: number;
  /** 0 for an item, 2 for a collection. */
  fileType: number;
  banned: boolean;
  /** Unix seconds. */
  timeCreated: number;
  /** Unix seconds. */
  timeUpdated: number;
  tags: string[];
  /** Required items (GetDetails `children` of an item). */
  children: string[];
  /** Sends numeric fields as strings, as some Steam responses do. */
  numbersAsStrings?: boolean;
}

export type FailureMode = "500" | "429" | "hang" | "garbage";

export interface StandInCall {
  /** `Interface/Method/v1`, e.g. `ISteamRemoteStorage/GetPublishedFileDetails/v1`. */
  endpoint: string;
  ids: string[];
}

export interface SteamStandIn {
  url: string;
  calls: StandInCall[];
  items: Map<string, StandInItem>;
  /** Collection id → child ids, in sort order. */
  collections: Map<string, string[]>;
  /** The next `count` requests to any endpoint fail this way. */
  failNext(count: number, mode: FailureMode, retryAfterSeconds?: number): void;
  /**
   * The next `count` requests that ask for this item fail this way; requests for other items pass.
   * A test whose service also calls the workshop in the background (jobs of earlier cases) aims its
   * failures at the call it is about.
   */
  failNextFor(workshopId: string, count: number, mode: FailureMode): void;
  /** Answers the next `count` requests, then holds every later one unanswered until `release()`. */
  holdAfter(count: number): void;
  /** Lets held requests (and later ones) through. */
  release(): void;
  /** How many requests are being held. */
  held(): number;
  /** Forgets calls, items, collections and pending failures. */
  reset(): void;
  /**
   * Where the stand-in serves a preview image for the item, standing in for Steam's image host so a
   * browser showing workshop previews loads nothing from beyond this machine.
   */
  previewUrl(workshopId: string): string;
  close(): Promise<void>;
}

/** A Project Zomboid workshop item with defaults for every field not given. */
export function standInItem(workshopId: string, overrides: Partial<StandInItem> = {}): StandInItem {
  return {
    workshopId,
    title: `Test Mod ${workshopId}`,
    description: `[h1]Test Mod ${workshopId}[/h1]\nA mod for testing.\n\nWorkshop ID: ${workshopId}\nMod ID: Mod${workshopId}`,
    previewUrl: `/previews/${workshopId}.svg`,
    consumerAppId: PROJECT_ZOMBOID_APP_ID,
    fileType: 0,
    banned: false,
    timeCreated: 1_650_000_000,
    timeUpdated: 1_700_000_000,
    tags: ["Build 41", "Misc"],
    children: [],
    ...overrides,
  };
}

const ENDPOINTS = {
  "/ISteamRemoteStorage/GetPublishedFileDetails/v1/": {
    name: "ISteamRemoteStorage/GetPublishedFileDetails/v1",
    method: "POST",
  },
  "/ISteamRemoteStorage/GetCollectionDetails/v1/": {
    name: "ISteamRemoteStorage/GetCollectionDetails/v1",
    method: "POST",
  },
  "/IPublishedFileService/GetDetails/v1/": { name: "IPublishedFileService/GetDetails/v1", method: "GET" },
} as const;

type EndpointPath = keyof typeof ENDPOINTS;

class BadRequest extends Error {}

function isEndpointPath(path: string): path is EndpointPath {
  return Object.hasOwn(ENDPOINTS, path);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `publishedfileids[0..count-1]`, as Steam reads them: with a count parameter every index below it must be
 * present; without one (GetDetails) indices are read until the first gap. No ids is a bad request.
 */
function readIds(parameters: URLSearchParams, countName: string | null): string[] {
  let count = Number.POSITIVE_INFINITY;
  if (countName !== null) {
    const countText = parameters.get(countName);
    if (countText === null || !/^\d+$/.test(countText)) {
      throw new BadRequest(`Required parameter '${countName}' is missing`);
    }
    count = Number(countText);
  }
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = parameters.get(`publishedfileids[${index}]`);
    if (id === null) {
      if (countName === null) break;
      throw new BadRequest(`Required parameter 'publishedfileids[${index}]' is missing`);
    }
    ids.push(id);
  }
  if (ids.length === 0) throw new BadRequest("Required parameter 'publishedfileids[0]' is missing");
  return ids;
}

function number(value: number, asString: boolean | undefined): number | string {
  return asString ? String(value) : value;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=UTF-8",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

/** `GET /previews/<workshop id>.svg`: the stand-in's preview images. */
const PREVIEW_PATH = /^\/previews\/([0-9]{1,20})\.svg$/;

/** A square in a colour of the workshop id, with its last digits: tells previews apart at a glance. */
function sendPreview(response: ServerResponse, workshopId: string): void {
  const hue = Number(BigInt(workshopId) % 360n);
  const text = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128"><rect width="128" height="128" fill="hsl(${hue} 45% 40%)"/><text x="64" y="76" font-family="sans-serif" font-size="36" font-weight="700" fill="#fff" text-anchor="middle">${workshopId.slice(-3)}</text></svg>`;
  response.writeHead(200, {
    "content-type": "image/svg+xml",
    "content-length": Buffer.byteLength(text),
    "cache-control": "public, max-age=3600",
  });
  response.end(text);
}

function sendHtml(response: ServerResponse, status: number, title: string): void {
  const text = `<html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;
  response.writeHead(status, { "content-type": "text/html; charset=UTF-8", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

export interface StandInOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  host?: string;
  /** Items served from the start. */
  items?: Iterable<StandInItem>;
  /** Collections served from the start: id → child ids, in sort order. */
  collections?: Iterable<[string, string[]]>;
}

/** Starts a Steam Web API stand-in (on 127.0.0.1 and any free port unless told) with the three workshop endpoints the service uses. */
export async function startSteamStandIn(options: StandInOptions = {}): Promise<SteamStandIn> {
  const items = new Map<string, StandInItem>([...(options.items ?? [])].map((item) => [item.workshopId, item]));
  const collections = new Map<string, string[]>(options.collections ?? []);
  const calls: StandInCall[] = [];
  const failures: { mode: FailureMode; retryAfterSeconds: number | undefined; workshopId?: string }[] = [];
  const sockets = new Set<Socket>();

  const itemFor = (id: string): StandInItem | undefined => {
    const item = items.get(id);
    if (item) return item;
    if (collections.has(id))
      return standInItem(id, { title: `Collection ${id}`, description: "A collection.", fileType: 2 });
    return undefined;
  };

  /** An item's preview URL as Steam answers it: absolute, on the stand-in itself when the item gives a path. */
  const previewOf = (item: StandInItem) =>
    item.previewUrl.startsWith("/") ? `${url}${item.previewUrl}` : item.previewUrl;

  const isCollection = (id: string) => collections.has(id) || items.get(id)?.fileType === 2;

  const childrenOf = (item: StandInItem) => {
    const ids = item.fileType === 2 ? (collections.get(item.workshopId) ?? item.children) : item.children;
    return ids.map((id, index) => ({
      publishedfileid: id,
      sortorder: number(index + 1, item.numbersAsStrings),
      file_type: number(isCollection(id) ? 2 : 0, item.numbersAsStrings),
    }));
  };

  const publishedFileDetails = (id: string) => {
    const item = itemFor(id);
    if (!item) return { publishedfileid: id, result: RESULT_FILE_NOT_FOUND };
    const s = item.numbersAsStrings;
    return {
      publishedfileid: id,
      result: number(RESULT_OK, s),
      creator: "76561197960287930",
      creator_app_id: number(item.fileType === 2 ? COLLECTION_CREATOR_APP_ID : item.consumerAppId, s),
      consumer_app_id: number(item.consumerAppId, s),
      file_type: number(item.fileType, s),
      filename: "",
      file_size: String(item.fileType === 2 ? 0 : 1_048_576),
      file_url: "",
      hcontent_file: "0",
      preview_url: previewOf(item),
      hcontent_preview: "0",
      title: item.title,
      description: item.description,
      time_created: number(item.timeCreated, s),
      time_updated: number(item.timeUpdated, s),
      visibility: number(0, s),
      banned: s ? (item.banned ? "1" : "0") : item.banned ? 1 : 0,
      ban_reason: item.banned ? "Banned by the developer" : "",
      subscriptions: number(1234, s),
      favorited: number(56, s),
      lifetime_subscriptions: number(2345, s),
      lifetime_favorited: number(78, s),
      views: number(9999, s),
      tags: item.tags.map((tag) => ({ tag })),
    };
  };

  const details = (id: string) => {
    const item = itemFor(id);
    if (!item) return { publishedfileid: id, result: RESULT_FILE_NOT_FOUND, language: 0 };
    const s = item.numbersAsStrings;
    const children = childrenOf(item);
    return {
      result: number(RESULT_OK, s),
      publishedfileid: id,
      creator: "76561197960287930",
      creator_appid: number(item.fileType === 2 ? COLLECTION_CREATOR_APP_ID : item.consumerAppId, s),
      consumer_appid: number(item.consumerAppId, s),
      consumer_shortcutid: 0,
      filename: "",
      file_size: String(item.fileType === 2 ? 0 : 1_048_576),
      preview_file_size: "20480",
      preview_url: previewOf(item),
      url: "",
      hcontent_file: "0",
      hcontent_preview: "0",
      title: item.title,
      file_description: item.description,
      time_created: number(item.timeCreated, s),
      time_updated: number(item.timeUpdated, s),
      visibility: 0,
      flags: 0,
      workshop_file: false,
      workshop_accepted: false,
      show_subscribe_all: children.length > 0,
      num_comments_public: 0,
      banned: item.banned,
      ban_reason: item.banned ? "Banned by the developer" : "",
      banner: "76561197960265728",
      can_be_deleted: true,
      app_name: "Project Zomboid",
      file_type: number(item.fileType, s),
      can_subscribe: true,
      subscriptions: 1234,
      favorited: 56,
      followers: 0,
      lifetime_subscriptions: 2345,
      lifetime_favorited: 78,
      lifetime_followers: 0,
      lifetime_playtime: "0",
      lifetime_playtime_sessions: "0",
      views: 9999,
      num_children: children.length,
      num_reports: 0,
      tags: item.tags.map((tag) => ({ tag, display_name: tag })),
      ...(children.length > 0 ? { children } : {}),
      language: 0,
      maybe_inappropriate_sex: false,
      maybe_inappropriate_violence: false,
      revision_change_number: "1",
      revision: 1,
      ban_text_check_result: 5,
    };
  };

  const collectionDetails = (id: string) => {
    const children = collections.get(id);
    if (children === undefined) {
      return items.has(id)
        ? { publishedfileid: id, result: RESULT_OK }
        : { publishedfileid: id, result: RESULT_FILE_NOT_FOUND };
    }
    return {
      publishedfileid: id,
      result: RESULT_OK,
      children: children.map((child, index) => ({
        publishedfileid: child,
        sortorder: index + 1,
        filetype: isCollection(child) ? 2 : 0,
      })),
    };
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const preview = request.method === "GET" ? PREVIEW_PATH.exec(url.pathname) : null;
    if (preview?.[1]) return sendPreview(response, preview[1]);
    const path = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
    // Not Steam's: publishes a new version of an item now, so that `pnpm dev` can show what an update does.
    const published = /^\/dev\/publish-update\/(\d+)\/$/.exec(path)?.[1];
    if (published !== undefined && request.method === "POST") {
      const item = items.get(published);
      if (!item) return sendJson(response, 404, { error: `No workshop item ${published}` });
      const timeUpdated = Math.max(Math.floor(Date.now() / 1000), item.timeUpdated + 1);
      items.set(published, { ...item, timeUpdated });
      return sendJson(response, 200, { workshopId: published, timeUpdated });
    }
    if (!isEndpointPath(path)) return sendHtml(response, 404, "Not Found");
    const endpoint = ENDPOINTS[path];
    if (request.method !== endpoint.method) return sendHtml(response, 405, "Method Not Allowed");

    let parameters: URLSearchParams;
    if (endpoint.method === "POST") {
      const body = await readBody(request);
      const type = request.headers["content-type"] ?? "";
      if (!type.startsWith("application/x-www-form-urlencoded")) return sendHtml(response, 400, "Bad Request");
      parameters = new URLSearchParams(body);
    } else {
      parameters = url.searchParams;
    }

    let ids: string[];
    try {
      if (path === "/ISteamRemoteStorage/GetPublishedFileDetails/v1/") ids = readIds(parameters, "itemcount");
      else if (path === "/ISteamRemoteStorage/GetCollectionDetails/v1/") ids = readIds(parameters, "collectioncount");
      else ids = readIds(parameters, null);
    } catch (error) {
      if (error instanceof BadRequest) return sendHtml(response, 400, `Bad Request: ${error.message}`);
      throw error;
    }
    calls.push({ endpoint: endpoint.name, ids });

    if (holdBudget !== null) {
      if (holdBudget > 0) holdBudget -= 1;
      else {
        heldCount += 1;
        await gate;
        heldCount -= 1;
      }
    }

    const aimed = failures.findIndex((entry) => entry.workshopId === undefined || ids.includes(entry.workshopId));
    const failure = aimed === -1 ? undefined : failures.splice(aimed, 1)[0];
    if (failure) {
      switch (failure.mode) {
        case "500":
          return sendHtml(response, 500, "Internal Server Error");
        case "429":
          if (failure.retryAfterSeconds !== undefined)
            response.setHeader("retry-after", String(failure.retryAfterSeconds));
          return sendHtml(response, 429, "Too Many Requests");
        case "hang":
          return;
        case "garbage":
          return sendHtml(response, 200, "Steam is down for maintenance");
      }
    }

    if (path === "/IPublishedFileService/GetDetails/v1/") {
      if (!parameters.get("key")) return sendHtml(response, 403, "Forbidden");
      return sendJson(response, 200, { response: { publishedfiledetails: ids.map(details) } });
    }
    if (path === "/ISteamRemoteStorage/GetCollectionDetails/v1/") {
      return sendJson(response, 200, {
        response: { result: 1, resultcount: ids.length, collectiondetails: ids.map(collectionDetails) },
      });
    }
    return sendJson(response, 200, {
      response: { result: 1, resultcount: ids.length, publishedfiledetails: ids.map(publishedFileDetails) },
    });
  }

  let holdBudget: number | null = null;
  let heldCount = 0;
  let openGate = () => {};
  let gate = Promise.resolve();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendHtml(response, 500, `Internal Server Error: ${String(error)}`);
      else response.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    calls,
    items,
    collections,
    failNext(count, mode, retryAfterSeconds) {
      for (let index = 0; index < count; index++) failures.push({ mode, retryAfterSeconds });
    },
    failNextFor(workshopId, count, mode) {
      for (let index = 0; index < count; index++) failures.push({ mode, retryAfterSeconds: undefined, workshopId });
    },
    holdAfter(count) {
      holdBudget = count;
      gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
    },
    release() {
      holdBudget = null;
      openGate();
    },
    held: () => heldCount,
    reset() {
      holdBudget = null;
      openGate();
      calls.length = 0;
      items.clear();
      collections.clear();
      failures.length = 0;
    },
    previewUrl(workshopId) {
      return `${url}/previews/${encodeURIComponent(workshopId)}.svg`;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
