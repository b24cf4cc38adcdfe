import { setTimeout as sleep } from "node:timers/promises";
import { WORKSHOP_ID, workshopTextLimits } from "@modpack/contract";
import { z } from "zod";
import { retryAfterSeconds } from "../retry-after.js";
import { type BuildModIds, parseDescription, type RejectedDescriptionValue } from "./description.js";

/** Steam app id of Project Zomboid; items for any other game are refused. */
export const PROJECT_ZOMBOID_APP_ID = 108600;
/** Steam reports collections as created by the "Steam Workshop" app (766), whatever game they are for. */
const COLLECTION_CREATOR_APP_ID = 766;
/** `file_type` / `filetype` of a collection (k_EWorkshopFileTypeCollection). */
const COLLECTION_FILE_TYPE = 2;
const BATCH_SIZE = 100;
const BATCH_CONCURRENCY = 2;
const MAX_RETRY_DELAY_MS = 10_000;

export const WORKSHOP_ENDPOINTS = {
  publishedFileDetails: "ISteamRemoteStorage/GetPublishedFileDetails/v1",
  collectionDetails: "ISteamRemoteStorage/GetCollectionDetails/v1",
  details: "IPublishedFileService/GetDetails/v1",
} as const;

export type WorkshopEndpoint = (typeof WORKSHOP_ENDPOINTS)[keyof typeof WORKSHOP_ENDPOINTS];

export interface WorkshopItem {
  workshopId: string;
  title: string;
  description: string;
  previewUrl: string | null;
  tags: string[];
  timeUpdated: Date | null;
  platformModIds: string[];
  mapFolders: string[];
  requiredWorkshopIds: string[];
  /** In-game ids per game build (ids the description does not qualify belong to both). */
  buildModIds?: BuildModIds;
  /** Ids and map folders the description gives that cannot be used, each with the reason. */
  rejectedValues?: RejectedDescriptionValue[];
}

export type WorkshopItemResult =
  | { ok: true; item: WorkshopItem }
  | { ok: false; workshopId: string; reason: "missing" | "wrong_game" | "collection" | "banned" };

type CollectionResult =
  | {
      ok: true;
      collectionId: string;
      /** `fileType`: 0 for an item, 2 for a nested collection. */
      children: { workshopId: string; fileType: number; sortOrder: number }[];
    }
  | { ok: false; collectionId: string; reason: "missing" };

type CollectionExpansion =
  | { ok: true; itemIds: string[]; nestedCollections: string[] }
  | { ok: false; reason: "missing" | "too_many_items" | "too_deep" };

/** How far a collection expansion may go: items in all, and levels of collections (the root is level 1). */
export interface ExpansionBounds {
  maxItems: number;
  maxDepth: number;
}

export interface WorkshopClientOptions {
  /** Steam Web API root, e.g. https://api.steampowered.com (no trailing slash needed). */
  baseUrl: string;
  /** With a key, items are read through IPublishedFileService/GetDetails, which also lists required items. */
  apiKey?: string;
  fetch?: typeof fetch;
  /** Per-request limit, including reading the body. Default 10 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, plus up to the same amount of jitter. Default 250. */
  retryBaseMs?: number;
}

export interface WorkshopClient {
  /** One result per input id, in input order. */
  getItems(ids: string[]): Promise<WorkshopItemResult[]>;
  /** One result per input id, in input order; children sorted by sort order. */
  getCollections(ids: string[]): Promise<CollectionResult[]>;
  /** Every item of a collection and of the collections nested in it, breadth-first. */
  expandCollection(collectionId: string, bounds?: ExpansionBounds): Promise<CollectionExpansion>;
}

type WorkshopErrorKind = "unavailable" | "rate_limited" | "bad_response";

/** The Steam Web API could not give a usable answer. Messages never contain the API key. */
export class WorkshopError extends Error {
  override name = "WorkshopError";

  constructor(
    readonly kind: WorkshopErrorKind,
    readonly endpoint: WorkshopEndpoint,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const integer = z.union([
  z.int(),
  z
    .string()
    .trim()
    .regex(/^-?\d+$/)
    .transform(Number),
]);

const workshopId = z.union([z.string().trim().regex(WORKSHOP_ID), z.int().nonnegative().transform(String)]);

const flag = z.union([
  z.boolean(),
  z.number().transform((value) => value !== 0),
  z.string().transform((value) => !["", "0", "false"].includes(value.trim().toLowerCase())),
]);

/** A field Steam may leave out; one of the wrong shape is as good as none. */
const optional = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const optionalInteger = optional(integer);
const optionalText = optional(z.string());

const childSchema = z.object({
  publishedfileid: workshopId,
  sortorder: optionalInteger,
  filetype: optionalInteger,
  file_type: optionalInteger,
});

/** One entry of GetPublishedFileDetails or GetDetails; the two spell some fields differently. */
const detailSchema = z.object({
  publishedfileid: workshopId,
  result: integer,
  consumer_app_id: optionalInteger,
  consumer_appid: optionalInteger,
  creator_app_id: optionalInteger,
  creator_appid: optionalInteger,
  file_type: optionalInteger,
  title: optionalText,
  description: optionalText,
  file_description: optionalText,
  preview_url: optionalText,
  time_updated: optionalInteger,
  tags: optional(z.array(z.object({ tag: z.string() }))),
  banned: optional(flag),
  children: optional(z.array(childSchema)),
});

const detailsResponseSchema = z.object({
  response: z.object({ publishedfiledetails: z.array(detailSchema) }),
});

const collectionSchema = z.object({
  publishedfileid: workshopId,
  result: integer,
  children: z.array(childSchema).optional(),
});

const collectionsResponseSchema = z.object({
  response: z.object({ collectiondetails: z.array(collectionSchema) }),
});

type Detail = z.infer<typeof detailSchema>;
type Collection = z.infer<typeof collectionSchema>;

/** Why one attempt failed, for a failure retrying may cure. */
interface Failure {
  kind: WorkshopErrorKind;
  message: string;
  status?: number;
  delayMs?: number;
}

function chunk<T>(values: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size));
  return chunks;
}

/** The wait a Retry-After header asks for, bounded; undefined when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  const seconds = retryAfterSeconds(header);
  return seconds === null ? undefined : Math.min(MAX_RETRY_DELAY_MS, seconds * 1000);
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

const LINE_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
const CONTROL = /\p{Cc}/gu;

/** At most `max` code units, never ending inside a surrogate pair. */
function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * A description as stored: lone surrogates become U+FFFD, every line break `\n`, and control
 * characters other than `\n` and `\t` (NUL included) are removed; bounded in length.
 */
export function cleanDescription(text: string): string {
  const cleaned = text
    .toWellFormed()
    .replace(LINE_BREAKS, "\n")
    .replace(CONTROL, (character) => (character === "\n" || character === "\t" ? character : ""));
  return bounded(cleaned, workshopTextLimits.description);
}

/** One line of text (a title, a tag): line breaks and tabs become spaces, other control characters go. */
export function cleanLine(text: string, max: number): string {
  const cleaned = text
    .toWellFormed()
    .replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, " ")
    .replace(CONTROL, "")
    .trim();
  return bounded(cleaned, max).trim();
}

/** An http(s) URL without control characters or spaces and of bounded length; otherwise null. */
export function cleanUrl(text: string | undefined): string | null {
  if (text === undefined || text === "" || text.length > workshopTextLimits.previewUrl) return null;
  if (/[\p{Cc}\s\u2028\u2029]/u.test(text) || !text.isWellFormed()) return null;
  const protocol = URL.canParse(text) ? new URL(text).protocol : undefined;
  return protocol === "https:" || protocol === "http:" ? text : null;
}

/** Distinct non-empty tags, each bounded, at most `workshopTextLimits.tags` of them. */
export function cleanTags(tags: string[]): string[] {
  const cleaned = tags.map((tag) => cleanLine(tag, workshopTextLimits.tag)).filter((tag) => tag.length > 0);
  return [...new Set(cleaned)].slice(0, workshopTextLimits.tags);
}

function toItemResult(requestedId: string, detail: Detail | undefined): WorkshopItemResult {
  if (detail === undefined || detail.result !== 1) return { ok: false, workshopId: requestedId, reason: "missing" };
  if ((detail.consumer_app_id ?? detail.consumer_appid) !== PROJECT_ZOMBOID_APP_ID) {
    return { ok: false, workshopId: requestedId, reason: "wrong_game" };
  }
  if (
    detail.file_type === COLLECTION_FILE_TYPE ||
    (detail.creator_app_id ?? detail.creator_appid) === COLLECTION_CREATOR_APP_ID
  ) {
    return { ok: false, workshopId: requestedId, reason: "collection" };
  }
  if (detail.banned === true) return { ok: false, workshopId: requestedId, reason: "banned" };

  const description = cleanDescription(detail.description ?? detail.file_description ?? "");
  const parsed = parseDescription(description, requestedId);
  // Seconds since the epoch; a value no date can hold (past year 275760) is as good as none.
  const timeUpdated = new Date((detail.time_updated ?? 0) * 1000);
  const required = new Set((detail.children ?? []).map((child) => child.publishedfileid));
  required.delete(requestedId);
  return {
    ok: true,
    item: {
      workshopId: requestedId,
      title: cleanLine(detail.title ?? "", workshopTextLimits.title),
      description,
      previewUrl: cleanUrl(detail.preview_url),
      tags: cleanTags((detail.tags ?? []).map((tag) => tag.tag)),
      timeUpdated: timeUpdated.getTime() > 0 ? timeUpdated : null,
      platformModIds: parsed.platformModIds,
      buildModIds: parsed.buildModIds,
      mapFolders: parsed.mapFolders,
      rejectedValues: parsed.rejected,
      requiredWorkshopIds: [...required].slice(0, workshopTextLimits.requiredItems),
    },
  };
}

function toCollectionResult(requestedId: string, collection: Collection | undefined): CollectionResult {
  if (collection === undefined || collection.result !== 1 || collection.children === undefined) {
    return { ok: false, collectionId: requestedId, reason: "missing" };
  }
  // The sort is stable: children with the same sort order stay in Steam's order.
  const children = collection.children
    .map((child, index) => ({
      workshopId: child.publishedfileid,
      fileType: child.filetype ?? child.file_type ?? 0,
      sortOrder: child.sortorder ?? index,
    }))
    .sort((a, b) => a.sortOrder - b.sortOrder);
  return { ok: true, collectionId: requestedId, children };
}

/** Client for the public Steam Web API endpoints that describe workshop items and collections. */
export function createWorkshopClient(options: WorkshopClientOptions): WorkshopClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const apiKey = options.apiKey || undefined;
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRetries = options.maxRetries ?? 3;
  const retryBaseMs = options.retryBaseMs ?? 250;

  const redact = (text: string) => (apiKey === undefined ? text : text.replaceAll(apiKey, "[redacted]"));

  const backoffMs = (retry: number) => {
    const base = retryBaseMs * 2 ** retry;
    return Math.min(MAX_RETRY_DELAY_MS, base + Math.random() * base);
  };

  /** One attempt: the parsed body, or why it failed. Throws only for answers that retrying cannot fix. */
  async function attempt<T>(
    endpoint: WorkshopEndpoint,
    url: string,
    init: RequestInit,
    schema: z.ZodType<T>,
  ): Promise<{ data: T } | Failure> {
    let response: Response;
    let body: string;
    try {
      response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      body = await response.text();
    } catch (error) {
      const message = isTimeout(error)
        ? `did not answer within ${timeoutMs} ms`
        : `could not be reached (${redact(describeError(error))})`;
      return { kind: "unavailable", message };
    }
    const { status } = response;
    if (status === 429) {
      return {
        kind: "rate_limited",
        status,
        message: "answered HTTP 429 (rate limited)",
        delayMs: retryAfterMs(response.headers.get("retry-after")),
      };
    }
    if (status >= 500) return { kind: "unavailable", status, message: `answered HTTP ${status}` };
    if (!response.ok) {
      throw new WorkshopError("bad_response", endpoint, `Steam Web API ${endpoint} answered HTTP ${status}`, status);
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return { kind: "bad_response", status, message: "answered with non-JSON" };
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) return { data: parsed.data };
    const issue = parsed.error.issues[0]!;
    const where = `${issue.path.join(".") || "(root)"}: ${issue.message}`;
    return { kind: "bad_response", status, message: `answered with an unexpected shape at ${redact(where)}` };
  }

  /**
   * Sends `ids` as `publishedfileids[i]` with `fields`, retrying what may pass: GetDetails as a GET
   * (the key in the query), the ISteamRemoteStorage endpoints as a form POST.
   */
  async function request<T>(
    endpoint: WorkshopEndpoint,
    ids: string[],
    fields: Record<string, string>,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const parameters = new URLSearchParams(fields);
    ids.forEach((id, index) => {
      parameters.append(`publishedfileids[${index}]`, id);
    });
    const get = endpoint === WORKSHOP_ENDPOINTS.details;
    const url = `${baseUrl}/${endpoint}/${get ? `?${parameters}` : ""}`;
    const init: RequestInit = get
      ? { headers: { accept: "application/json" } }
      : { method: "POST", headers: { accept: "application/json" }, body: parameters };
    for (let retry = 0; ; retry++) {
      const outcome = await attempt(endpoint, url, init, schema);
      if ("data" in outcome) return outcome.data;
      if (retry >= maxRetries) {
        const attempts = retry + 1;
        throw new WorkshopError(
          outcome.kind,
          endpoint,
          `Steam Web API ${endpoint} ${outcome.message} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`,
          outcome.status,
        );
      }
      await sleep(outcome.delayMs ?? backoffMs(retry));
    }
  }

  async function fetchDetails(ids: string[]): Promise<Detail[]> {
    const [endpoint, fields] =
      apiKey === undefined
        ? [WORKSHOP_ENDPOINTS.publishedFileDetails, { itemcount: String(ids.length) }]
        : [WORKSHOP_ENDPOINTS.details, { key: apiKey, includechildren: "true", includetags: "true" }];
    const data = await request(endpoint, ids, fields, detailsResponseSchema);
    return data.response.publishedfiledetails;
  }

  async function fetchCollections(ids: string[]): Promise<Collection[]> {
    const fields = { collectioncount: String(ids.length) };
    const data = await request(WORKSHOP_ENDPOINTS.collectionDetails, ids, fields, collectionsResponseSchema);
    return data.response.collectiondetails;
  }

  /**
   * Looks up each distinct well-formed id once (ids that are not numbers are never sent), in
   * batches, BATCH_CONCURRENCY at a time; a failed batch stops the rest.
   */
  async function lookUp<T extends { publishedfileid: string }>(
    ids: string[],
    fetchBatch: (batch: string[]) => Promise<T[]>,
  ): Promise<Map<string, T>> {
    const batches = chunk(
      [...new Set(ids)].filter((id) => WORKSHOP_ID.test(id)),
      BATCH_SIZE,
    );
    const found = new Map<string, T>();
    for (let start = 0; start < batches.length; start += BATCH_CONCURRENCY) {
      const entries = await Promise.all(batches.slice(start, start + BATCH_CONCURRENCY).map(fetchBatch));
      for (const entry of entries.flat()) {
        if (!found.has(entry.publishedfileid)) found.set(entry.publishedfileid, entry);
      }
    }
    return found;
  }

  async function getItems(ids: string[]): Promise<WorkshopItemResult[]> {
    const found = await lookUp(ids, fetchDetails);
    return ids.map((id) => toItemResult(id, found.get(id)));
  }

  async function getCollections(ids: string[]): Promise<CollectionResult[]> {
    const found = await lookUp(ids, fetchCollections);
    return ids.map((id) => toCollectionResult(id, found.get(id)));
  }

  async function expandCollection(collectionId: string, bounds?: ExpansionBounds): Promise<CollectionExpansion> {
    const visited = new Set([collectionId]);
    const itemIds = new Set<string>();
    const nestedCollections: string[] = [];
    let level = [collectionId];
    for (let depth = 1; level.length > 0; depth++) {
      if (bounds && depth > bounds.maxDepth) return { ok: false, reason: "too_deep" };
      const results = await getCollections(level);
      level = [];
      for (const result of results) {
        if (!result.ok) {
          if (depth === 1) return { ok: false, reason: "missing" };
          continue;
        }
        if (depth > 1) nestedCollections.push(result.collectionId);
        for (const child of result.children) {
          if (child.fileType !== COLLECTION_FILE_TYPE) {
            itemIds.add(child.workshopId);
            if (bounds && itemIds.size > bounds.maxItems) return { ok: false, reason: "too_many_items" };
          } else if (!visited.has(child.workshopId)) {
            visited.add(child.workshopId);
            level.push(child.workshopId);
          }
        }
      }
    }
    return { ok: true, itemIds: [...itemIds], nestedCollections };
  }

  return { getItems, getCollections, expandCollection };
}
