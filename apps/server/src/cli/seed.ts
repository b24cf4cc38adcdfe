import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { upsertWorkshopItems } from "../db/mods.js";
import type { WorkshopItem } from "../workshop/client.js";

/**
 * A workshop description as authors write them: BBCode, with the `Workshop ID:`, `Mod ID:` and
 * `Map Folder:` lines the workshop client reads the in-game ids from.
 */
export function demoDescription(
  workshopId: string,
  title: string,
  blurb: string,
  platformModIds: string[],
  tags: string[],
  mapFolders: string[] = [],
): string {
  const builds = tags.filter((tag) => /^Build \d+$/.test(tag));
  return [
    `[h1]${title}[/h1]`,
    blurb,
    "",
    "[h2]Compatibility[/h2]",
    "[list]",
    ...builds.map((build) => `[*]Works on ${build}`),
    "[*]Single player and multiplayer",
    mapFolders.length > 0 ? "[*]Start a new game to see the map" : "[*]Safe to add to an existing save",
    "[/list]",
    "",
    "[b]Bugs?[/b] Leave a comment with your console.txt.",
    "[hr][/hr]",
    `Workshop ID: ${workshopId}`,
    ...platformModIds.map((id) => `Mod ID: ${id}`),
    ...mapFolders.map((folder) => `Map Folder: ${folder}`),
  ].join("\n");
}

const item = (
  workshopId: string,
  title: string,
  platformModIds: string[],
  tags: string[],
  blurb: string,
  mapFolders: string[] = [],
): WorkshopItem => ({
  workshopId,
  title,
  description: demoDescription(workshopId, title, blurb, platformModIds, tags, mapFolders),
  previewUrl: null,
  tags,
  timeUpdated: new Date("2026-10-01T08:00:00Z"),
  platformModIds,
  mapFolders,
  requiredWorkshopIds: [],
});

/** Demo catalogue: made-up workshop items shaped like real Project Zomboid mods. */
export const demoMods: WorkshopItem[] = [
  item(
    "3100000001",
    "Vehicle Overhaul Pack",
    ["VehicleOverhaul"],
    ["Build 41", "Vehicles"],
    "More cars, better handling.",
  ),
  item(
    "3100000002",
    "Extended Firearms",
    ["ExtendedFirearms", "ExtendedFirearms_Ammo"],
    ["Build 41", "Weapons"],
    "Adds 120 firearms and ammunition types.",
  ),
  item(
    "3100000003",
    "Better Sorting",
    ["BetterSorting"],
    ["Build 41", "Build 42", "Interface"],
    "Sorts items into sensible categories.",
  ),
  item("3100000004", "Raven Creek Map", ["RavenCreek"], ["Build 41", "Map"], "A large river town.", ["RavenCreek"]),
  item("3100000005", "Fort Knox Map", ["FortKnox"], ["Build 41", "Map"], "The gold vault and its base.", [
    "FortKnoxLinked",
    "FortKnox",
  ]),
  item("3100000006", "True Music", ["truemusic"], ["Build 41", "Audio"], "Cassettes and vinyl records."),
  item(
    "3100000007",
    "Authentic Z",
    ["Authentic Z - Current"],
    ["Build 41", "Clothing"],
    "Zombie outfits and clothing.",
  ),
  item("3100000008", "Simple Overhaul: Melee", ["SOMW"], ["Build 41", "Weapons"], "Rebalanced melee weapons."),
  item(
    "3100000009",
    "Common Sense",
    ["BB_CommonSense"],
    ["Build 41", "Build 42", "Gameplay"],
    "Pry open doors with a crowbar, and more.",
  ),
  item("3100000010", "Map Legend UI", ["MapLegendUI"], ["Build 42", "Interface"], "A legend for the in-game map."),
  item(
    "3100000011",
    "Skill Recovery Journal",
    ["SkillRecoveryJournal"],
    ["Build 41", "Build 42", "Gameplay"],
    "Keep some skills after death.",
  ),
  item("3100000012", "Louisville Expansion", ["LouisvilleExpansion"], ["Build 41", "Map"], "More city blocks.", [
    "LouisvilleExpansion",
  ]),
];

const demoUsers = [
  { name: "Kate", email: "kate@example.com" },
  { name: "Baldspot", email: "baldspot@example.com" },
  { name: "Marina", email: "marina@example.com" },
];

const demoModpacks = [
  {
    owner: "kate@example.com",
    name: "Kentucky Roadtrip",
    description: "Vehicles, maps and music for a long drive through Knox Country.",
    mods: ["3100000001", "3100000004", "3100000006", "3100000012"],
  },
  {
    owner: "baldspot@example.com",
    name: "Hard Survival",
    description: "Firearms, melee and common sense for a tough server.",
    mods: ["3100000002", "3100000008", "3100000009", "3100000011"],
  },
  {
    owner: "marina@example.com",
    name: "Build 42 Quality of Life",
    description: "Interface and gameplay improvements that work on Build 42.",
    mods: ["3100000003", "3100000009", "3100000010", "3100000011"],
  },
];

/** Fills the database with demo users, public modpacks and mods; running it again changes nothing. */
export async function seedDemo(db: Db): Promise<{ users: number; modpacks: number; mods: number }> {
  const mods = await upsertWorkshopItems(db, demoMods);
  const modByWorkshopId = new Map(mods.map((mod) => [mod.workshopId, mod.id]));
  const users = new Map<string, string>();
  for (const user of demoUsers) {
    const existing = await db
      .selectFrom("users")
      .select("id")
      .where(sql<string>`lower(email)`, "=", user.email)
      .executeTakeFirst();
    const id =
      existing?.id ??
      (
        await db
          .insertInto("users")
          .values({ name: user.name, email: user.email, image: null })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    users.set(user.email, id);
  }
  let created = 0;
  for (const pack of demoModpacks) {
    const ownerId = users.get(pack.owner);
    if (!ownerId) continue;
    const existing = await db
      .selectFrom("modpacks")
      .select("id")
      .where("ownerId", "=", ownerId)
      .where("name", "=", pack.name)
      .executeTakeFirst();
    if (existing) continue;
    await db.transaction().execute(async (trx) => {
      const modpack = await trx
        .insertInto("modpacks")
        .values({ name: pack.name, description: pack.description, ownerId, isPublic: true, metadata: "{}" })
        .returning("id")
        .executeTakeFirstOrThrow();
      const modIds = pack.mods.flatMap((workshopId) => modByWorkshopId.get(workshopId) ?? []);
      await trx
        .insertInto("modpackMods")
        .values(modIds.map((modId) => ({ modpackId: modpack.id, modId, addedBy: ownerId })))
        .execute();
    });
    created += 1;
  }
  return { users: users.size, modpacks: created, mods: mods.length };
}
