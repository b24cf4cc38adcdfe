import { demoDescription, demoMods } from "../src/cli/seed.js";
import type { WorkshopItem } from "../src/workshop/client.js";
import { type StandInItem, standInItem } from "./steam-api.js";

/** The collection the demo stack serves (also the contract's example collection, so `/docs` imports it as-is). */
export const DEMO_COLLECTION_ID = "2875848298";

const extra = (
  workshopId: string,
  title: string,
  platformModIds: string[],
  tags: string[],
  blurb: string,
  requiredWorkshopIds: string[] = [],
  mapFolders: string[] = [],
): WorkshopItem => ({
  workshopId,
  title,
  description: demoDescription(workshopId, title, blurb, platformModIds, tags, mapFolders),
  previewUrl: null,
  tags,
  timeUpdated: new Date("2026-10-15T12:00:00Z"),
  platformModIds,
  mapFolders,
  requiredWorkshopIds,
});

/**
 * Items the stand-in serves that the seed leaves out of the catalogue (adding one reads it from the
 * stand-in): two made-up ones, and the workshop ids the walkthrough (README.md, docs/walkthrough.md),
 * its modpack check example and examples/ use. Required items are served through IPublishedFileService/GetDetails,
 * which the service calls only with a STEAM_API_KEY (any value does for the stand-in).
 */
const extraMods: WorkshopItem[] = [
  extra(
    "3100000013",
    "Night Sprinters Toggle",
    ["NightSprintersToggle"],
    ["Build 41", "Build 42", "Gameplay"],
    "Zombies sprint at night and shamble by day; a sandbox option turns it off.",
  ),
  extra(
    "3100000014",
    "Muldraugh Fire Station",
    ["MuldraughFireStation"],
    ["Build 41", "Map"],
    "A staffed fire station on the road out of Muldraugh, with a truck in the garage.",
    [],
    ["MuldraughFireStation"],
  ),
  extra("2169435993", "Mod Options", ["modoptions"], ["Build 41", "Framework"], "An options menu other mods use."),
  extra(
    "2392709985",
    "Tsar's Common Library",
    ["tsarslib"],
    ["Build 41", "Framework"],
    "Shared code for the vehicle mods of the Autotsar series.",
  ),
  extra(
    "2282429356",
    "Autotsar Trailers",
    ["autotsartrailers"],
    ["Build 41", "Vehicles"],
    "Trailers of every size, towed by any car.",
    ["2392709985"],
  ),
  extra(
    "2297098490",
    "Arsenal(26) GunFighter",
    ["Arsenal(26)GunFighter"],
    ["Build 41", "Weapons"],
    "Reworked firearm mechanics: attachments, jamming and recoil.",
  ),
  extra(
    "2200148440",
    "Brita's Weapon Pack",
    ["Brita"],
    ["Build 41", "Weapons"],
    "Hundreds of real-world firearms and their ammunition.",
    ["2297098490"],
  ),
];

/** The workshop items of the demo catalogue (the seed's mods and a few more), as Steam serves them. */
export const demoWorkshopMods: WorkshopItem[] = [...demoMods, ...extraMods];

function asStandInItem(mod: WorkshopItem): StandInItem {
  return standInItem(mod.workshopId, {
    title: mod.title,
    description: mod.description,
    // The demo works offline: no preview image to load from Steam's servers.
    previewUrl: "",
    tags: mod.tags,
    timeCreated: Math.floor(new Date("2026-01-10T10:00:00Z").getTime() / 1000),
    timeUpdated: Math.floor((mod.timeUpdated ?? new Date("2026-10-01T08:00:00Z")).getTime() / 1000),
    children: mod.requiredWorkshopIds,
  });
}

/** What the stand-in of `pnpm dev` serves: every demo mod, and one collection of some of them. */
export function demoWorkshop(): { items: StandInItem[]; collections: [string, string[]][] } {
  const collection = standInItem(DEMO_COLLECTION_ID, {
    title: "Knox Country Survival Essentials",
    description:
      "[h1]Knox Country Survival Essentials[/h1]\nWeapons, clothing and quality of life for a long survival server.\n\nSubscribe to all, then add the mods in this order.",
    previewUrl: "",
    fileType: 2,
    tags: [],
  });
  return {
    items: [...demoWorkshopMods.map(asStandInItem), collection],
    collections: [[DEMO_COLLECTION_ID, ["3100000002", "3100000003", "3100000007", "3100000009", "3100000013"]]],
  };
}
