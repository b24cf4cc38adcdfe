import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertWorkshopItems } from "../src/db/mods.js";
import { createModpack } from "./support/modpacks.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { workshopItem, workshopUrl } from "./support/workshop.js";

let service: TestService;
let owner: SignedIn;
let bigPack: string;

const catalogue = [
  { id: "9101", title: "Pokémon Adventures", description: "Catch them all" },
  { id: "9102", title: "Brita's Weapon Pack", description: "Guns and more guns" },
  { id: "9103", title: "Eris' Minimap", description: "A map in the corner" },
  { id: "9104", title: "Raven Creek Map", description: "The town of Raven Creek" },
  { id: "9105", title: "Creek Fishing", description: "Fish by the raven's nest map marker" },
  { id: "9106", title: "Raven Statue", description: "Decoration" },
  { id: "9107", title: "Café Crème", description: "Coffee ÉCLAIR recipes" },
  { id: "9108", title: "100% Loot", description: "Every container_full of loot" },
  { id: "9109", title: "Straße Signs", description: "Road signs" },
  { id: "9110", title: "TV Shows", description: "Channel zz" },
];

beforeAll(async () => {
  service = await startTestService({ env: { WORKSHOP_API_URL: "http://127.0.0.1:9" } });
  owner = await signIn(service);
  await upsertWorkshopItems(
    service.runtime.database.db,
    catalogue.map((item, index) =>
      workshopItem(item.id, {
        title: item.title,
        description: item.description,
        platformModIds: [`Search${index}`],
        tags: index % 2 === 0 ? ["Even"] : ["Odd"],
      }),
    ),
  );
  bigPack = await createModpack(service, owner, { name: "Search pack", isPublic: true });
  for (const item of catalogue) {
    const response = await service.app.inject({
      method: "POST",
      url: `/modpacks/${bigPack}/mods`,
      headers: owner.headers,
      payload: { modAtribute: item.id },
    });
    expect(response.statusCode, response.body).toBe(201);
  }
  for (const [name, description] of [
    ["Pokémon Survivors", "A server for friends"],
    ["Raven Creek Roleplay", "Lore-friendly"],
    ["Cozy Creek", "Fishing by the raven's nest"],
    ["Ünïcode Öutpost", undefined],
  ] as const) {
    await createModpack(service, owner, { name, ...(description ? { description } : {}), isPublic: true });
  }
});

afterAll(async () => {
  await service?.stop();
});

async function names(url: string): Promise<string[]> {
  const response = await service.app.inject({ method: "GET", url, headers: owner.headers });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.map((row: { name: string }) => row.name);
}

const q = encodeURIComponent;

describe("search finds what a person typed", () => {
  // search → the names found, in the list's default sort (mods: by name)
  const modCases: [string, string[]][] = [
    ["Pokemon", ["Pokémon Adventures"]],
    ["pokémon", ["Pokémon Adventures"]],
    ["POKEMON", ["Pokémon Adventures"]],
    ["brita", ["Brita's Weapon Pack"]],
    ["brita's weapon", ["Brita's Weapon Pack"]],
    ["eris", ["Eris' Minimap"]],
    ["raven creek map", ["Creek Fishing", "Raven Creek Map"]],
    ["map creek raven", ["Creek Fishing", "Raven Creek Map"]],
    ["  raven   statue ", ["Raven Statue"]],
    ["cafe creme", ["Café Crème"]],
    ["eclair", ["Café Crème"]],
    ["strasse", ["Straße Signs"]],
    ["straße", ["Straße Signs"]],
    ["100%", ["100% Loot"]],
    ["0%", ["100% Loot"]],
    ["container_full", ["100% Loot"]],
    ["r_ven", []],
    ["%", ["100% Loot"]],
    ["tv", ["TV Shows"]],
    ["channel zz", ["TV Shows"]],
    ["zz channel", []],
    ["mod 1 pack", []],
    ["eapon", ["Brita's Weapon Pack"]],
    ["9103", ["Eris' Minimap"]],
    ["910", catalogue.filter((item) => item.id !== "9110").map((item) => item.title)],
    [workshopUrl("9106"), ["Raven Statue"]],
    ["Search3", ["Raven Creek Map"]],
    ["search3", []],
    ["nothing like this", []],
  ];
  it.each(modCases)("GET /mods?search=%s", async (search, expected) => {
    expect(await names(`/mods?search=${q(search)}&limit=100`)).toEqual([...expected].sort());
  });

  it.each(modCases.filter(([search]) => !search.startsWith("https")))(
    "GET /modpacks/{id}/mods?search=%s finds the same mods in the modpack",
    async (search, expected) => {
      const found = await names(`/modpacks/${bigPack}/mods?search=${q(search)}&limit=100&sortBy=name`);
      expect(found).toEqual([...expected].sort());
      const inPack = await names(`/mods?modpackId=${bigPack}&search=${q(search)}&limit=100`);
      expect(inPack).toEqual([...expected].sort());
    },
  );

  const modpackCases: [string, string[]][] = [
    ["pokemon", ["Pokémon Survivors"]],
    ["raven creek", ["Cozy Creek", "Raven Creek Roleplay"]],
    ["creek raven", ["Cozy Creek", "Raven Creek Roleplay"]],
    ["roleplay raven", ["Raven Creek Roleplay"]],
    ["unicode outpost", ["Ünïcode Öutpost"]],
    ["friends", ["Pokémon Survivors"]],
    ["xyz", []],
  ];
  it.each(modpackCases)("GET /modpacks/public?search=%s", async (search, expected) => {
    expect(await names(`/modpacks/public?search=${q(search)}&sortBy=name&sortOrder=asc`)).toEqual([...expected].sort());
  });
  it.each(modpackCases)("GET /modpacks/my?search=%s", async (search, expected) => {
    expect(await names(`/modpacks/my?search=${q(search)}&sortBy=name&sortOrder=asc`)).toEqual([...expected].sort());
  });
});

describe("search keeps the requested sort and the other filters", () => {
  it.each([
    ["name", "asc"],
    ["name", "desc"],
    ["createdAt", "asc"],
    ["createdAt", "desc"],
    ["updatedAt", "desc"],
  ])("GET /mods?search=raven&sortBy=%s&sortOrder=%s", async (sortBy, sortOrder) => {
    const response = await service.app.inject({
      method: "GET",
      url: `/mods?search=raven&sortBy=${sortBy}&sortOrder=${sortOrder}&limit=100`,
    });
    const rows: Record<string, string>[] = response.json().data;
    const keys = rows.map((row) => row[sortBy] ?? "");
    const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(keys).toEqual(sortOrder === "asc" ? sorted : sorted.reverse());
    expect(rows.map((row) => row.name).sort()).toEqual(["Creek Fishing", "Raven Creek Map", "Raven Statue"]);
  });

  it("a search with tags needs both", async () => {
    expect(await names("/mods?search=raven&tags=Odd")).toEqual(["Raven Creek Map", "Raven Statue"]);
    expect(await names(`/modpacks/${bigPack}/mods?search=raven&tags=Even&sortBy=name`)).toEqual(["Creek Fishing"]);
  });
});

describe("the stored search text", () => {
  it("follows a renamed mod and modpack", async () => {
    const db = service.runtime.database.db;
    await upsertWorkshopItems(db, [
      workshopItem("9110", { title: "Télé Shows", description: "Channel zz", platformModIds: ["Search9"] }),
    ]);
    expect(await names("/mods?search=tele")).toEqual(["Télé Shows"]);
    expect(await names("/mods?search=tv")).toEqual([]);
    const id = await createModpack(service, owner, { name: "Before rename", isPublic: true });
    const renamed = await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${id}`,
      headers: owner.headers,
      payload: { name: "Après rename", description: "Naïve" },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(await names("/modpacks/public?search=apres naive")).toEqual(["Après rename"]);
    expect(await names("/modpacks/public?search=before")).toEqual([]);
  });

  it("is filled for every row and indexed where the database offers trigrams", async () => {
    const db = service.runtime.database.db;
    const empty = await sql<{ count: number }>`
      select (select count(*) from mods where search_text is null) + (select count(*) from modpacks where search_text is null) as count
    `.execute(db);
    expect(Number(empty.rows[0]?.count)).toBe(0);
    const indexes = await sql<{ name: string }>`
      select indexname as name from pg_indexes where indexname in ('mods_search_text_idx', 'modpacks_search_text_idx') order by 1
    `.execute(db);
    expect(indexes.rows.map((row) => row.name)).toEqual(["modpacks_search_text_idx", "mods_search_text_idx"]);
    const normalized = await sql<{ value: string }>`select search_normalize('Pokémon ÉCLAIR') as value`.execute(db);
    expect(normalized.rows[0]?.value).toBe("pokemon eclair");
  });
});
