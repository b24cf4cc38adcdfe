import { describe, expect, it } from "vitest";
import { keyOf, mergeMap, patchServerFile, readEntries } from "./patch.js";

const target = { mods: ["\\Brita", "\\Brita_2"], workshopItems: ["2200148440"], map: ["Muldraugh, KY"] };
const LONG = Array.from({ length: 5000 }, (_, index) => `SomeMod${index}`).join(";");

interface PatchCase {
  name: string;
  input: string;
  expected: string;
  changes?: Partial<ReturnType<typeof patchServerFile>["changes"]>;
}

const cases: PatchCase[] = [
  {
    name: "LF: replaces the three lines in place, keeps everything else",
    input: "# My server\nPVP=true\nMods=Old\n\nWorkshopItems=1\nMap=Muldraugh, KY\nPublic=false\n",
    expected:
      "# My server\nPVP=true\nMods=\\Brita;\\Brita_2\n\nWorkshopItems=2200148440\nMap=Muldraugh, KY\nPublic=false\n",
    changes: { modsAdded: 2, modsRemoved: 1, workshopItemsAdded: 1, workshopItemsRemoved: 1, mapChanged: false },
  },
  {
    name: "CRLF: keeps every line ending, appends with CRLF",
    input: "PVP=true\r\nMods=\\Brita\r\nPublic=false\r\n",
    expected: "PVP=true\r\nMods=\\Brita;\\Brita_2\r\nPublic=false\r\nWorkshopItems=2200148440\r\nMap=Muldraugh, KY\r\n",
    changes: { modsAdded: 1, modsRemoved: 0, workshopItemsAdded: 1, mapChanged: true },
  },
  {
    name: "mixed line endings stay as they were, line by line",
    input: "A=1\r\nMods=X\nB=2\rWorkshopItems=\r\nMap=Muldraugh, KY\n",
    expected: "A=1\r\nMods=\\Brita;\\Brita_2\nB=2\rWorkshopItems=2200148440\r\nMap=Muldraugh, KY\n",
  },
  {
    name: "a leading BOM is kept and does not hide the first key",
    input: "\uFEFFMods=Old\nWorkshopItems=1\nMap=Muldraugh, KY\n",
    expected: "\uFEFFMods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
  },
  {
    name: "no final newline, all keys present: still none",
    input: "PVP=true\nMods=\nWorkshopItems=\nMap=Muldraugh, KY",
    expected: "PVP=true\nMods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY",
  },
  {
    name: "no final newline, keys missing: appended after a line break, still no final newline",
    input: "PVP=true\r\nPublic=false",
    expected: "PVP=true\r\nPublic=false\r\nMods=\\Brita;\\Brita_2\r\nWorkshopItems=2200148440\r\nMap=Muldraugh, KY",
  },
  {
    name: "an empty file gets the three lines",
    input: "",
    expected: "Mods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
    changes: { modsAdded: 2, modsRemoved: 0, workshopItemsAdded: 1, workshopItemsRemoved: 0, mapChanged: true },
  },
  {
    name: "later duplicates are removed, the first stays where it is",
    input: "Mods=A\nPVP=true\nMods=B\nWorkshopItems=1\nWorkshopItems=2\nMap=X\n  Map = Y\n",
    expected: "Mods=\\Brita;\\Brita_2\nPVP=true\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
    changes: { modsRemoved: 1, workshopItemsRemoved: 1, mapChanged: true },
  },
  {
    name: "comments holding Mods= are not settings",
    input: "# Mods=Commented\n   #Mods=Indented comment\nMods=Real\n#WorkshopItems=9\n",
    expected:
      "# Mods=Commented\n   #Mods=Indented comment\nMods=\\Brita;\\Brita_2\n#WorkshopItems=9\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
  },
  {
    name: "keys compare case-sensitively and trimmed, as the game reads them",
    input: "mods=lower\nMODS=upper\n\t Mods \t= Spaced\nModsExtra=1\n;Mods=semicolon\n",
    expected:
      "mods=lower\nMODS=upper\nMods=\\Brita;\\Brita_2\nModsExtra=1\n;Mods=semicolon\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
    changes: { modsRemoved: 1 },
  },
  {
    name: "a very long line is replaced whole",
    input: `PVP=true\nMods=${LONG}\nServerWelcomeMessage=${"x".repeat(20_000)}\n`,
    expected: `PVP=true\nMods=\\Brita;\\Brita_2\nServerWelcomeMessage=${"x".repeat(20_000)}\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n`,
    changes: { modsAdded: 2, modsRemoved: 5000 },
  },
  {
    name: "UTF-8 names elsewhere stay byte for byte",
    input: "PublicName=Zомбі 🧟 Сервер\nPublicDescription=Ünïcödé\u2028still the same line\nMods=Ä\n",
    expected:
      "PublicName=Zомбі 🧟 Сервер\nPublicDescription=Ünïcödé\u2028still the same line\nMods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
  },
  {
    name: "the same mods written without 42x's backslash count as neither added nor removed",
    input: "Mods=Brita;Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
    expected: "Mods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
    changes: { modsAdded: 0, modsRemoved: 0, workshopItemsAdded: 0, workshopItemsRemoved: 0, mapChanged: false },
  },
  {
    name: "a key line with an empty value and stray separators",
    input: "Mods=;;  ;\nWorkshopItems= 2200148440 ;\nMap=Muldraugh, KY\n",
    expected: "Mods=\\Brita;\\Brita_2\nWorkshopItems=2200148440\nMap=Muldraugh, KY\n",
    changes: { modsAdded: 2, modsRemoved: 0, workshopItemsAdded: 0, workshopItemsRemoved: 0 },
  },
];

describe("patchServerFile", () => {
  it.each(cases)("$name", ({ input, expected, changes }) => {
    const patched = patchServerFile(input, target);
    expect(patched.content).toBe(expected);
    if (changes) expect(patched.changes).toMatchObject(changes);
  });

  it("gives the same file when patched twice", () => {
    for (const { input } of cases) {
      const once = patchServerFile(input, target).content;
      const twice = patchServerFile(once, target);
      expect(twice.content).toBe(once);
      expect(twice.changes).toEqual({
        modsAdded: 0,
        modsRemoved: 0,
        workshopItemsAdded: 0,
        workshopItemsRemoved: 0,
        mapChanged: false,
      });
    }
  });
});

describe("keyOf", () => {
  it.each([
    ["Mods=A", "Mods"],
    ["  Mods  =A", "Mods"],
    ["Mods", undefined],
    ["# Mods=A", undefined],
    ["", undefined],
    ["=value", ""],
    ["Map=Muldraugh, KY=odd", "Map"],
  ])("%j has key %j", (line, key) => {
    expect(keyOf(line)).toBe(key);
  });
});

describe("readEntries and mergeMap", () => {
  it("keeps the owner's own map folders between the modpack's and the base map", () => {
    const file = "\uFEFFMap=OwnTown;CatalogueMap;Muldraugh, KY;PackMap; OwnTown ;Second Own\n";
    const current = readEntries(file, "Map") ?? [];
    expect(current).toEqual(["OwnTown", "CatalogueMap", "Muldraugh, KY", "PackMap", "OwnTown", "Second Own"]);
    expect(mergeMap(["PackMap", "Muldraugh, KY"], current, new Set(["CatalogueMap", "PackMap"]))).toEqual([
      "PackMap",
      "OwnTown",
      "Second Own",
      "Muldraugh, KY",
    ]);
    expect(mergeMap(["Muldraugh, KY"], [], new Set())).toEqual(["Muldraugh, KY"]);
    expect(readEntries("PVP=true\n", "Map")).toBeUndefined();
  });
});
