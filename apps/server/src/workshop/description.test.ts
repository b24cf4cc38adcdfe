import { describe, expect, it } from "vitest";
import { type ParsedDescription, parseDescription, stripMarkup } from "./description.js";

interface Case {
  name: string;
  description: string;
  workshopId?: string;
  expected: ParsedDescription;
}

const cases: Case[] = [
  {
    name: "plain footer",
    workshopId: "2169435993",
    description: [
      "Adds a toolbar to the top-left corner of the screen.",
      "",
      "Workshop ID: 2169435993",
      "Mod ID: modoptions",
    ].join("\n"),
    expected: { platformModIds: ["modoptions"], mapFolders: [], workshopIds: ["2169435993"] },
  },
  {
    name: "BBCode headings, bold labels and a url tag",
    workshopId: "2392709985",
    description: [
      "[h1]Tsar's Common Library[/h1]",
      "A library for [url=https://steamcommunity.com/id/tsar]Tsar[/url]'s vehicle mods.",
      "[hr][/hr]",
      "[b]Workshop ID:[/b] 2392709985",
      "[b]Mod ID:[/b] tsarslib",
    ].join("\n"),
    expected: { platformModIds: ["tsarslib"], mapFolders: [], workshopIds: ["2392709985"] },
  },
  {
    name: "HTML line breaks and entities",
    workshopId: "2200148440",
    description:
      "Fixes &quot;Better Sorting&quot; &amp; more.<br>Workshop ID: 2200148440<br/>Mod ID: BetterSortCC&#39;s<br />Map Folder:&nbsp;none&lt;1&gt;",
    expected: {
      platformModIds: ["BetterSortCC's"],
      mapFolders: ["none<1>"],
      workshopIds: ["2200148440"],
    },
  },
  {
    name: "several mod ids on one line separated by semicolons",
    workshopId: "2875848298",
    description: "Workshop ID: 2875848298\nMod ID: Arsenal(26)GunFighter; Arsenal(26)GunFighter[MAIN MENU]; GunFighter",
    expected: {
      platformModIds: ["Arsenal(26)GunFighter", "Arsenal(26)GunFighter[MAIN MENU]", "GunFighter"],
      mapFolders: [],
      workshopIds: ["2875848298"],
    },
  },
  {
    name: "Mod IDs with commas and a ModID spelling",
    workshopId: "2478768005",
    description:
      "- Workshop ID: 2478768005\n- Mod IDs: FancyHandwork, FancyHandworkTweaks ,\n- ModID: FancyHandworkB42",
    expected: {
      platformModIds: ["FancyHandwork", "FancyHandworkTweaks", "FancyHandworkB42"],
      mapFolders: [],
      workshopIds: ["2478768005"],
    },
  },
  {
    name: "map folders keep commas and split on semicolons",
    workshopId: "2337452747",
    description: [
      "[list]",
      "[*]Workshop ID: 2337452747",
      "[*]Mod ID: Raven Creek",
      "[*]Map Folders: RavenCreek; Raven Creek, KY;RavenCreek",
      "[/list]",
    ].join("\n"),
    expected: {
      platformModIds: ["Raven Creek"],
      mapFolders: ["RavenCreek", "Raven Creek, KY"],
      workshopIds: ["2337452747"],
    },
  },
  {
    name: "advertises another mod inline",
    workshopId: "2313387159",
    description: [
      "Workshop ID: 2313387159",
      "Mod ID: SpnCloth",
      "",
      "Also check out my other mod: Workshop ID: 2313387999 Mod ID: SpnHair",
    ].join("\n"),
    expected: { platformModIds: ["SpnCloth"], mapFolders: [], workshopIds: ["2313387159", "2313387999"] },
  },
  {
    name: "requirement block after the item's own ids in the preamble",
    workshopId: "2619072426",
    description: [
      "Mod ID: AuthenticZLite",
      "Requires:",
      "Workshop ID: 2335368829",
      "Mod ID: Authentic Z - Current",
    ].join("\n"),
    expected: { platformModIds: ["AuthenticZLite"], mapFolders: [], workshopIds: ["2335368829"] },
  },
  {
    name: "Windows line endings",
    workshopId: "1510950729",
    description: "Hydrocraft\r\n\r\nWorkshop ID: 1510950729\r\nMod ID: Hydrocraft\r\nMap Folder: HydroMap\r\n",
    expected: { platformModIds: ["Hydrocraft"], mapFolders: ["HydroMap"], workshopIds: ["1510950729"] },
  },
  {
    name: "duplicate ids across lines",
    workshopId: "2804531012",
    description:
      "Workshop ID: 2804531012\nMod ID: SimpleOverhaulTraitsAndOccupations\nMod ID: SimpleOverhaulTraitsAndOccupations; SOTO",
    expected: {
      platformModIds: ["SimpleOverhaulTraitsAndOccupations", "SOTO"],
      mapFolders: [],
      workshopIds: ["2804531012"],
    },
  },
  {
    name: "empty description",
    workshopId: "1",
    description: "",
    expected: { platformModIds: [], mapFolders: [], workshopIds: [] },
  },
  {
    name: "no workshop id given returns everything",
    description: "Workshop ID: 100\nMod ID: First\nWorkshop ID: 200\nMod ID: Second\nMap Folder: SecondMap",
    expected: { platformModIds: ["First", "Second"], mapFolders: ["SecondMap"], workshopIds: ["100", "200"] },
  },
  {
    name: "single block with a mistyped workshop id is still used",
    workshopId: "2282429356",
    description: "Workshop ID: 2282429365\nMod ID: ToadTraits",
    expected: { platformModIds: ["ToadTraits"], mapFolders: [], workshopIds: ["2282429365"] },
  },
  {
    name: "several foreign blocks and no preamble attribute nothing",
    workshopId: "42",
    description: "Workshop ID: 100\nMod ID: First\nWorkshop ID: 200\nMod ID: Second",
    expected: { platformModIds: [], mapFolders: [], workshopIds: ["100", "200"] },
  },
  {
    name: "preamble kept when no block matches",
    workshopId: "42",
    description: "Mod ID: MyMod\nSee also:\nWorkshop ID: 100\nMod ID: First\nWorkshop ID: 200\nMod ID: Second",
    expected: { platformModIds: ["MyMod"], mapFolders: [], workshopIds: ["100", "200"] },
  },
  {
    name: "label in a heading with the value on the next line",
    workshopId: "2684285534",
    description: "[h2]Workshop ID:[/h2]\n2684285534\n[h2]Mod ID:[/h2]\n[code]BB_CommonSense[/code]",
    expected: { platformModIds: ["BB_CommonSense"], mapFolders: [], workshopIds: ["2684285534"] },
  },
  {
    name: "case-insensitive labels with extra spaces and several per line",
    workshopId: "2790040093",
    description: "WORKSHOP ID : 2790040093 | MOD id :  ItemTweakerAPI | map folder: ;",
    expected: { platformModIds: ["ItemTweakerAPI"], mapFolders: [], workshopIds: ["2790040093"] },
  },
  {
    name: "words that merely end in a label are ignored",
    workshopId: "77",
    description: "Set the ServerModID: nothing here\nMod ID: Real",
    expected: { platformModIds: ["Real"], mapFolders: [], workshopIds: [] },
  },
  {
    name: "repeated own block merges values",
    workshopId: "500",
    description: "Workshop ID: 500\nMod ID: A\nWorkshop ID: 600\nMod ID: B\nWorkshop ID: 500\nMap Folder: AMap",
    expected: { platformModIds: ["A"], mapFolders: ["AMap"], workshopIds: ["500", "600"] },
  },
];

describe("parseDescription", () => {
  it.each(cases)("$name", ({ description, workshopId, expected }) => {
    expect(parseDescription(description, workshopId)).toEqual(expected);
  });
});

describe("stripMarkup", () => {
  it.each([
    ["[b]bold[/b] and [i]italic[/i]", "bold and italic"],
    ["[url=https://example.com]link[/url]", "link"],
    ["a[h1]b[/h1]c", "a\nb\nc"],
    ["one<br>two<BR/>three", "one\ntwo\nthree"],
    ["&amp;lt; stays &lt;", "&lt; stays <"],
    ["&#65;&#x42;", "AB"],
    ["[color=#ff0000]red[/color] [size=4]big[/size]", "red big"],
    ["Foo[B42] and [MAIN MENU] stay", "Foo[B42] and [MAIN MENU] stay"],
  ])("%j", (input, output) => {
    expect(stripMarkup(input)).toBe(output);
  });
});
