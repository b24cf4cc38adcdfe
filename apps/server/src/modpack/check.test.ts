import { checkFindingSchema, type GameVersion } from "@modpack/contract";
import { describe, expect, it } from "vitest";
import { buildsOfTags, checkModpack, headerLines } from "./check.js";
import { applyConfiguration, distinctIds, idLookup, type PackMod } from "./pack-mods.js";

function mod(name: string, overrides: Partial<PackMod> = {}): PackMod {
  return {
    id: `00000000-0000-4000-8000-${name.padStart(12, "0")}`,
    name: `Mod ${name}`,
    workshopId: name,
    platformModIds: [`Id${name}`],
    mapFolders: [],
    tags: [],
    requiredWorkshopIds: [],
    available: true,
    ...overrides,
  };
}

const idOf = (name: string) => mod(name).id;

describe("distinctIds and idLookup", () => {
  const many = Array.from({ length: 12 }, (_, index) => `id${index % 9}`);
  const cases: [string, string[], string[]][] = [
    ["none", [], []],
    ["one", ["Brita"], ["Brita"]],
    ["a few, none repeated", ["a", "b", "c"], ["a", "b", "c"]],
    ["a few, repeated", ["b", "a", "b", "c", "a"], ["b", "a", "c"]],
    ["many, repeated", many, Array.from({ length: 9 }, (_, index) => `id${index}`)],
  ];
  it.each(cases)("keeps each id once, first come first, of %s", (_label, ids, distinct) => {
    expect(distinctIds(ids)).toEqual(distinct);
    const has = idLookup(ids);
    for (const id of ids) expect(has(id)).toBe(true);
    expect(has("absent")).toBe(false);
  });
});

describe("buildsOfTags", () => {
  const cases: [string[], string[]][] = [
    [[], []],
    [["Build 41"], ["41"]],
    [
      ["Build 42", "Build 41", "Weapons"],
      ["41", "42"],
    ],
    [["build42"], ["42"]],
    [["B41"], ["41"]],
    [["Build 42.13"], ["42"]],
    [["Builder", "Build", "Buildings 41", "41"], []],
  ];
  it.each(cases)("%j names builds %j", (tags, builds) => {
    expect([...buildsOfTags(tags)].sort()).toEqual(builds);
  });
});

describe("suggested order", () => {
  const cases: { name: string; mods: PackMod[]; expected: string[] }[] = [
    { name: "no requirements keep the saved order", mods: [mod("3"), mod("1"), mod("2")], expected: ["3", "1", "2"] },
    {
      name: "a requirement moves just before what needs it",
      mods: [mod("1"), mod("2", { requiredWorkshopIds: ["4"] }), mod("3"), mod("4")],
      expected: ["1", "3", "4", "2"],
    },
    {
      name: "a chain loads deepest first",
      mods: [
        mod("1", { requiredWorkshopIds: ["2"] }),
        mod("2", { requiredWorkshopIds: ["3"] }),
        mod("3", { requiredWorkshopIds: [] }),
      ],
      expected: ["3", "2", "1"],
    },
    {
      name: "a cycle keeps its saved order and still follows its own requirements",
      mods: [
        mod("1"),
        mod("2", { requiredWorkshopIds: ["3"] }),
        mod("3", { requiredWorkshopIds: ["2", "4"] }),
        mod("4"),
      ],
      expected: ["1", "4", "2", "3"],
    },
    {
      name: "a cycle reached from its later mod first still loads in its saved order",
      mods: [
        mod("1", { requiredWorkshopIds: ["3"] }),
        mod("2", { requiredWorkshopIds: ["3"] }),
        mod("3", { requiredWorkshopIds: ["2"] }),
      ],
      expected: ["2", "3", "1"],
    },
    {
      name: "a missing requirement changes nothing",
      mods: [mod("1", { requiredWorkshopIds: ["9"] }), mod("2")],
      expected: ["1", "2"],
    },
  ];
  it.each(cases)("$name", ({ mods, expected }) => {
    const result = checkModpack({ version: "42x", effective: applyConfiguration(mods, undefined) });
    expect(result.suggestedOrder).toEqual(expected.map(idOf));
  });
});

describe("headerLines", () => {
  it("lists errors and warnings, not information", () => {
    const result = checkModpack({
      version: "41x",
      effective: applyConfiguration(
        [
          mod("1", { requiredWorkshopIds: ["7"], tags: ["Build 42"] }),
          mod("2", { available: false }),
          mod("3", { platformModIds: ["Off"] }),
        ],
        {
          modsOrder: [],
          modConfig: { [idOf("3")]: { selectedPlatformModIds: [] } },
        },
      ),
      knownTitles: new Map([["7", "Seven"]]),
    });
    expect(result.findings.map((finding) => finding.code)).toEqual([
      "missing-requirement",
      "unavailable",
      "wrong-build",
      "nothing-selected",
    ]);
    expect(result.findings.map((finding) => finding.severity)).toEqual(["error", "error", "warning", "info"]);
    expect(headerLines(result.findings)).toEqual([
      'ERROR (missing-requirement): "Mod 1" (workshop 1) requires workshop item 7 ("Seven"), which is not in the modpack. Add it to the modpack.',
      expect.stringMatching(/^ERROR \(unavailable\): "Mod 2" \(workshop 2\) was removed/),
      expect.stringMatching(/^WARNING \(wrong-build\): "Mod 1" \(workshop 1\) is tagged for Build 42/),
    ]);
  });
});

describe("a finding's message stays within the contract's 2,000 characters", () => {
  // The longest a catalogue row allows: 255-character names and titles, 1,000-character in-game ids.
  const longName = (n: number) => `${"Very long name ".repeat(17).slice(0, 250)} ${n}`.slice(0, 255);
  const sharedId = "S".repeat(1000);
  const packOf = (size: number) =>
    Array.from({ length: size }, (_, index) =>
      mod(String(index + 1), {
        name: longName(index + 1),
        platformModIds: [sharedId],
        // Each requires the next, the last the first: one cycle through every mod, and one missing item.
        requiredWorkshopIds: [String(((index + 1) % size) + 1), "9999"],
        tags: ["Build 43"],
        available: index !== 0,
      }),
    );
  const knownTitles = new Map([["9999", "T".repeat(255)]]);
  const cases: [number, GameVersion][] = [
    [2, "42x"],
    [3, "41x"],
    [8, "42x"],
    [60, "42x"],
  ];
  it.each(cases)("%i mods sharing an id and a cycle, on %s", (size, version) => {
    const result = checkModpack({ version, effective: applyConfiguration(packOf(size), undefined), knownTitles });
    expect(new Set(result.findings.map((finding) => finding.code))).toEqual(
      new Set(["id-clash", "requirement-cycle", "missing-requirement", "unavailable", "wrong-build"]),
    );
    for (const finding of result.findings) expect(checkFindingSchema.safeParse(finding).error).toBeUndefined();
    const clash = result.findings.find((finding) => finding.code === "id-clash")!;
    expect(1 + (clash.relatedModIds?.length ?? 0)).toBe(size);
    expect(clash.message).toContain(size > 2 ? `and ${size - 2} more mod` : " and ");
  });
});
