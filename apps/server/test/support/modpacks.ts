import type { ExportStatus, ImportStatus } from "@modpack/contract";
import { expect } from "vitest";
import type { TestService } from "./service.js";
import type { SignedIn } from "./users.js";
import { waitFor } from "./wait.js";
import { workshopUrl } from "./workshop.js";

export type { ExportStatus, ImportStatus };

/** Creates a modpack over HTTP as `who` (expecting `201`) and answers its id. */
export async function createModpack(
  service: TestService,
  who: SignedIn,
  body: { name?: string; isPublic?: boolean; [field: string]: unknown } = {},
): Promise<string> {
  const response = await service.app.inject({
    method: "POST",
    url: "/modpacks",
    headers: who.headers,
    payload: { name: "Test modpack", ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

/** Asks for an import of a workshop collection and answers the response, whatever its status. */
export function requestImport(service: TestService, who: SignedIn, modpackId: string, collectionId: string) {
  return service.app.inject({
    method: "POST",
    url: `/modpacks/${modpackId}/import`,
    headers: who.headers,
    payload: { platformUrl: workshopUrl(collectionId) },
  });
}

/** Starts an import of a workshop collection (expecting `202`) and answers its id. */
export async function startImport(
  service: TestService,
  who: SignedIn,
  modpackId: string,
  collectionId: string,
): Promise<string> {
  const response = await requestImport(service, who, modpackId, collectionId);
  expect(response.statusCode, response.body).toBe(202);
  return response.json().importId;
}

/** Reads a modpack's latest import status as `who` until it is `completed` or `failed`. */
export function waitForImport(
  service: TestService,
  who: SignedIn,
  modpackId: string,
  timeoutMs = 30_000,
): Promise<ImportStatus> {
  return waitFor(
    `the import into ${modpackId} finishing`,
    async () => {
      const response = await service.app.inject({
        method: "GET",
        url: `/modpacks/${modpackId}/import/status`,
        headers: who.headers,
      });
      return response.json() as ImportStatus;
    },
    (body) => body.status === "completed" || body.status === "failed",
    { timeoutMs, describe: (body) => body.status },
  );
}

/** Asks for a server file (expecting `202`) and answers the export id. */
export async function requestFile(
  service: TestService,
  who: SignedIn,
  modpackId: string,
  version: "41x" | "42x",
): Promise<string> {
  const response = await service.app.inject({
    method: "POST",
    url: `/modpacks/${modpackId}/server-file`,
    headers: who.headers,
    payload: { version },
  });
  expect(response.statusCode, response.body).toBe(202);
  return response.json().exportId;
}

/** Reads an export's status as `who` until it is `completed` or `failed`. */
export function waitForExport(
  service: TestService,
  who: SignedIn,
  exportId: string,
  timeoutMs = 15_000,
): Promise<ExportStatus> {
  return waitFor(
    `export ${exportId} finishing`,
    async () => {
      const response = await service.app.inject({
        method: "GET",
        url: `/modpacks/export/${exportId}`,
        headers: who.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as ExportStatus;
    },
    (body) => body.status === "completed" || body.status === "failed",
    { timeoutMs, intervalMs: 10, describe: (body) => body.status },
  );
}

export interface NotificationBody {
  id: string;
  title: string;
  type: string;
  content: string;
  metadata: string;
  isRead: boolean;
}

/** The caller's notifications over HTTP, newest first (the 100 latest). */
export async function notificationsOf(service: TestService, who: SignedIn): Promise<NotificationBody[]> {
  const response = await service.app.inject({ method: "GET", url: "/notifications?limit=100", headers: who.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().notifications;
}

/** The caller's notifications about one import, newest first, with their metadata parsed. */
export async function importNotifications(service: TestService, who: SignedIn, importId: string) {
  return (await notificationsOf(service, who))
    .map((note) => ({ ...note, metadata: JSON.parse(note.metadata) as Record<string, unknown> }))
    .filter((note) => note.metadata.importId === importId);
}
