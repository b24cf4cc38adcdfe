import type { WorkshopItem } from "../../src/workshop/client.js";

/** A hand-built workshop item, as the workshop client would answer it. */
export function workshopItem(workshopId: string, overrides: Partial<WorkshopItem> = {}): WorkshopItem {
  return {
    workshopId,
    title: `Item ${workshopId}`,
    description: `Description of ${workshopId}`,
    previewUrl: null,
    tags: [],
    timeUpdated: new Date("2026-01-01T00:00:00Z"),
    platformModIds: [`Item${workshopId}`],
    mapFolders: [],
    requiredWorkshopIds: [],
    ...overrides,
  };
}

/** The Steam Workshop page of an item or a collection, as a user pastes it. */
export const workshopUrl = (id: string) => `https://steamcommunity.com/sharedfiles/filedetails/?id=${id}`;
