/** Deterministic, realistic-looking seed data: names, descriptions and tags shaped like Project Zomboid content. */

/** mulberry32: a small seeded PRNG, so every run seeds the same data. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Random = () => number;

export function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

export function int(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** A Zipf-like pick: earlier items are chosen more often. */
export function zipf<T>(random: Random, items: readonly T[], exponent = 1): T {
  const weights = items.map((_, index) => 1 / (index + 1) ** exponent);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let target = random() * total;
  for (let index = 0; index < items.length; index++) {
    target -= weights[index] ?? 0;
    if (target <= 0) return items[index] as T;
  }
  return items[items.length - 1] as T;
}

const places = [
  "Knox Country",
  "Louisville",
  "Muldraugh",
  "West Point",
  "Riverside",
  "Rosewood",
  "March Ridge",
  "Raven Creek",
  "Ekron",
  "Brandenburg",
  "Irvington",
  "Fort Knox",
  "Valley Station",
  "Echo Creek",
  "Dixie",
  "Fallas Lake",
  "Crossroads Mall",
  "Bedford Falls",
  "Chestown",
  "Grapeseed",
];

const moods = [
  "Hardcore",
  "Casual",
  "Vanilla+",
  "Brutal",
  "Cozy",
  "Realistic",
  "Lore-friendly",
  "Ultimate",
  "Chill",
  "Tactical",
  "Rusty",
  "Silent",
  "Frozen",
  "Lonely",
  "Rural",
  "Urban",
  "Desperate",
  "Friendly",
  "Sprinter",
  "Slow-burn",
];

const kinds = [
  "Survival",
  "Roleplay",
  "Server Pack",
  "Collection",
  "Apocalypse",
  "Outbreak",
  "Experience",
  "Overhaul",
  "Run",
  "Community",
  "PvE",
  "PvP",
  "Co-op",
  "Sandbox",
];

const features = [
  "more firearms and ammunition",
  "a helicopter event every few days",
  "working generators and electricity",
  "hundreds of new vehicles",
  "expanded farming and cooking",
  "trading posts run by players",
  "base building with better walls",
  "huge hordes that migrate at night",
  "realistic medical treatment",
  "new professions and traits",
  "radio stations that still broadcast",
  "fishing and hunting overhauls",
  "quality-of-life interface mods",
  "new clothing, armour and backpacks",
  "custom maps stitched into the vanilla world",
  "slower loot respawn and scarce food",
  "skill books and recovery journals",
  "a safehouse for every faction",
  "music cassettes and vinyl",
  "winter that actually hurts",
];

const openers = [
  "A modpack for",
  "Our server's list for",
  "Curated mods for",
  "Everything you need for",
  "Tested load order for",
  "Weekly-updated pack for",
];

const audiences = [
  "small groups of friends",
  "long multiplayer seasons",
  "solo players who want a challenge",
  "new players learning the game",
  "roleplay communities",
  "hardcore survivors",
];

/** A modpack name such as "Hardcore Raven Creek Survival". */
export function modpackName(random: Random): string {
  const parts = [pick(random, moods), pick(random, places), pick(random, kinds)];
  if (random() < 0.3) parts.shift();
  const name = parts.join(" ");
  return name.length <= 50 ? name : name.slice(0, 50);
}

/** One to three sentences about a modpack. */
export function modpackDescription(random: Random): string {
  const chosen = new Set<string>();
  const count = int(random, 2, 4);
  while (chosen.size < count) chosen.add(pick(random, features));
  const list = [...chosen];
  const last = list.pop();
  let text = `${pick(random, openers)} ${pick(random, audiences)}: ${list.join(", ")} and ${last}.`;
  if (random() < 0.5) text += ` Set in ${pick(random, places)}, ${int(random, 1, 12)} months after the outbreak.`;
  if (random() < 0.3) text += " Join our Discord for the server address and rules.";
  return text;
}

export const tagNames = [
  "Build 41",
  "Build 42",
  "Items",
  "Weapons",
  "Gameplay",
  "Map",
  "Vehicles",
  "Clothing",
  "Interface",
  "Misc",
  "Realistic",
  "Multiplayer",
  "Textures",
  "Models",
  "Food",
  "Building",
  "Audio",
  "Traits",
  "Professions",
  "Skills",
  "Medical",
  "Farming",
  "Crafting",
  "Zombies",
  "Animation",
  "Furniture",
  "Framework",
  "Balance",
  "Literature",
  "Electronics",
  "Fishing",
  "Hunting",
  "Survival",
  "Horror",
  "Lighting",
  "QoL",
  "Sandbox",
  "Server",
  "Translation",
  "Cheats",
] as const;

const modTopics = [
  "Firearms",
  "Vehicles",
  "Hairstyles",
  "Backpacks",
  "Generators",
  "Farming",
  "Fishing",
  "Radio",
  "Medical",
  "Helicopter Events",
  "Lockpicking",
  "Sprinters",
  "Weather",
  "Furniture",
  "Loot Tables",
  "Skill Books",
  "Night Vision",
  "Trailers",
  "Bicycles",
  "Cooking",
  "Knives",
  "Armour",
  "Traps",
  "Water Pumps",
  "Military Gear",
  "Tailoring",
  "Horses",
  "Mechanics",
  "Boats",
  "Barricades",
];

const modPrefixes = [
  "Better",
  "Extended",
  "Simple",
  "Immersive",
  "Authentic",
  "More",
  "Realistic",
  "Expanded",
  "Brita's",
  "Tsar's",
  "KI5's",
  "Filibuster's",
  "True",
  "Advanced",
  "Easy",
  "Improved",
];

const modSentences = [
  "This mod adds new items and recipes that fit the vanilla style.",
  "Compatible with multiplayer; every client needs the same version.",
  "Works on existing saves, but a new world is recommended for loot changes.",
  "Sandbox options let server owners tune spawn rates and difficulty.",
  "Translations: English, Spanish, Portuguese, Russian, German and French.",
  "Requires the framework mod listed in the required items.",
  "Report bugs in the discussion thread with your console.txt attached.",
  "Textures were redrawn at twice the vanilla resolution.",
  "Balanced around the default Apocalypse settings.",
  "Includes a map of every new location and a small lore book.",
  "Adds a radio broadcast schedule and emergency channels.",
  "Zombies react to the new noises, so plan your base accordingly.",
  "All models are original and free to use in other modpacks with credit.",
  "Patched for the latest unstable build; older builds use the legacy branch.",
];

export interface SeedMod {
  workshopId: string;
  title: string;
  description: string;
  tags: string[];
  platformModIds: string[];
  mapFolders: string[];
  timeUpdated: Date;
}

export function modItem(random: Random, index: number): SeedMod {
  const topic = pick(random, modTopics);
  const title = `${pick(random, modPrefixes)} ${topic}${random() < 0.2 ? " (Build 42)" : ""}`;
  const sentences = new Set<string>();
  const count = int(random, 3, 7);
  while (sentences.size < count) sentences.add(pick(random, modSentences));
  const description = `[h1]${title}[/h1]\n${[...sentences].join(" ")}\n\nWorkshop ID: ${2_000_000_000 + index}\nMod ID: ${topic.replace(/\W/g, "")}${index}`;
  const tags = new Set<string>([random() < 0.6 ? "Build 41" : "Build 42"]);
  if (random() < 0.25) tags.add("Build 42");
  const extra = int(random, 1, 3);
  while (tags.size < extra + 1) tags.add(zipf(random, tagNames.slice(2), 0.8));
  const isMap = tags.has("Map");
  const modId = `${topic.replace(/\W/g, "")}${index}`;
  return {
    workshopId: String(2_000_000_000 + index),
    title,
    description,
    tags: [...tags],
    platformModIds: random() < 0.15 ? [modId, `${modId}_addon`] : [modId],
    mapFolders: isMap ? [`${pick(random, places).replace(/\W/g, "")}${index}`] : [],
    timeUpdated: new Date(Date.UTC(2022, 0, 1) + Math.floor(random() * 4 * 365 * 86_400_000)),
  };
}

export const userNames = [
  "Kate",
  "Baldspot",
  "Marina",
  "Spiffo",
  "Bob",
  "Lemmy",
  "Nolan",
  "Kira",
  "Diego",
  "Aiko",
  "Sven",
  "Priya",
  "Olu",
  "Mateus",
  "Hanna",
  "Yuri",
  "Chen",
  "Fatima",
  "Liam",
  "Noor",
];
