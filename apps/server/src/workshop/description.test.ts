import { describe, expect, it } from "vitest";
import { describeRejectedValues, type ParsedDescription, parseDescription, stripMarkup } from "./description.js";

/** Without `buildModIds` every id belongs to both builds; without `rejected` nothing is rejected. */
type Expected = Omit<ParsedDescription, "buildModIds" | "rejected"> & Partial<ParsedDescription>;

interface Case {
  name: string;
  description: string;
  workshopId?: string;
  expected: Expected;
}

function complete(expected: Expected): ParsedDescription {
  return {
    buildModIds: { "41x": expected.platformModIds, "42x": expected.platformModIds },
    rejected: [],
    ...expected,
  };
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
    expect(parseDescription(description, workshopId)).toEqual(complete(expected));
  });
});

interface IdCase {
  name: string;
  description: string;
  workshopId?: string;
  /** Every id, in order. */
  all: string[];
  /** Ids of each build; both default to `all`. */
  b41?: string[];
  b42?: string[];
  rejected?: ParsedDescription["rejected"];
  mapFolders?: string[];
}

function checkIds({ description, workshopId, all, b41, b42, rejected, mapFolders }: IdCase) {
  const parsed = parseDescription(description, workshopId);
  expect(parsed.platformModIds).toEqual(all);
  expect(parsed.buildModIds).toEqual({ "41x": b41 ?? all, "42x": b42 ?? all });
  expect(parsed.rejected).toEqual(rejected ?? []);
  if (mapFolders !== undefined) expect(parsed.mapFolders).toEqual(mapFolders);
}

const buildCases: IdCase[] = [
  {
    name: "Mod ID (b41) and Mod ID (b42) on their own lines",
    description: "Workshop ID: 3001\nMod ID (b41): LootPlus\nMod ID (b42): LootPlus42",
    workshopId: "3001",
    all: ["LootPlus", "LootPlus42"],
    b41: ["LootPlus"],
    b42: ["LootPlus42"],
  },
  {
    name: "B42 Mod ID beside an unqualified Mod ID",
    description: "Mod ID: CarryMore\nB42 Mod ID: CarryMoreB42",
    all: ["CarryMore", "CarryMoreB42"],
    b41: ["CarryMore"],
    b42: ["CarryMore", "CarryMoreB42"],
  },
  {
    name: "[B42] Mod ID and [B41] Mod ID",
    description: "[B41] Mod ID: SnowIsWater\n[B42] Mod ID: SnowIsWater_b42",
    all: ["SnowIsWater", "SnowIsWater_b42"],
    b41: ["SnowIsWater"],
    b42: ["SnowIsWater_b42"],
  },
  {
    name: "Mod ID (Build 42) and Mod ID (Build 41) in bold",
    description: "[b]Mod ID (Build 41):[/b] TrueActions\n[b]Mod ID (Build 42):[/b] TrueActions42",
    all: ["TrueActions", "TrueActions42"],
    b41: ["TrueActions"],
    b42: ["TrueActions42"],
  },
  {
    name: "B41 Mod ID and Build 42 Mod ID",
    description: "B41 Mod ID: OldMachines\nBuild 42 Mod ID: NewMachines",
    all: ["OldMachines", "NewMachines"],
    b41: ["OldMachines"],
    b42: ["NewMachines"],
  },
  {
    name: "qualifiers after the label: Mod ID B42, Mod ID for B41, Mod ID [B42]",
    description: "Mod ID for B41: Alpha\nMod ID B42: Beta\nMod ID [B42]: Gamma",
    all: ["Alpha", "Beta", "Gamma"],
    b41: ["Alpha"],
    b42: ["Beta", "Gamma"],
  },
  {
    name: "both builds named on one label",
    description: "Mod ID (B41/B42): Shared\nMod ID (B42): Only42",
    all: ["Shared", "Only42"],
    b41: ["Shared"],
    b42: ["Shared", "Only42"],
  },
  {
    name: "two qualified labels on one line",
    description: "Mod ID (b41): FooOld | Mod ID (b42): FooNew",
    all: ["FooOld", "FooNew"],
    b41: ["FooOld"],
    b42: ["FooNew"],
  },
  {
    name: "a minor build number and a full-width colon",
    description: "Mod ID (B42.13)： Fishing42",
    all: ["Fishing42"],
    b41: [],
    b42: ["Fishing42"],
  },
  {
    name: "the same id under both qualified labels belongs to both builds",
    description: "Mod ID (b41): Same\nMod ID (b42): Same",
    all: ["Same"],
  },
  {
    name: "annotations naming a build qualify the id",
    description: "Mod ID: BetterFPS (B41), BetterFPS42 (B42)",
    all: ["BetterFPS", "BetterFPS42"],
    b41: ["BetterFPS"],
    b42: ["BetterFPS42"],
  },
  {
    name: "heading lines naming a build start a section",
    description:
      "[h2]Build 41[/h2]\nMod ID: RadioOld\n[h2]Build 42:[/h2]\nMod ID: Radio\n[h2]B41/B42[/h2]\nMod ID: RadioLib",
    all: ["RadioOld", "Radio", "RadioLib"],
    b41: ["RadioOld", "RadioLib"],
    b42: ["Radio", "RadioLib"],
  },
  {
    name: "section lines in a row add up",
    description: "Supports:\n[b]B41[/b]\n[b]B42[/b]\nMod ID: Both\nOnly for:\nBuild 42\nMod ID: New",
    all: ["Both", "New"],
    b41: ["Both"],
  },
  {
    name: "a mod's own version line is no section",
    description: "[b]v42[/b]\nMod ID: Versioned",
    all: ["Versioned"],
  },
  {
    name: "a sentence mentioning a build is no section",
    description: "Now updated for Build 42!\nMod ID: StillBoth",
    all: ["StillBoth"],
  },
  {
    name: "per-build ids inside the item's own block only",
    description: "Workshop ID: 3002\nMod ID (b42): MineB42\nRequires:\nWorkshop ID: 3003\nMod ID (b41): TheirsB41",
    workshopId: "3002",
    all: ["MineB42"],
    b41: [],
    b42: ["MineB42"],
  },
];

const annotationCases: IdCase[] = [
  { name: "(CHANGED) after the id", description: "Mod ID: Foo (CHANGED)", all: ["Foo"] },
  { name: "bold (NEW) after the id", description: "Mod ID: Foo [b](NEW)[/b]", all: ["Foo"] },
  { name: "several annotations", description: "Mod ID: Bar (NEW) (UPDATED 2024)", all: ["Bar"] },
  {
    name: "an annotation holding a comma does not split the value",
    description: "Mod ID: Baz (renamed, was BazOld); Qux",
    all: ["Baz", "Qux"],
  },
  { name: "text after a run of spaces", description: "Mod ID: Foo     <- copy this", all: ["Foo"] },
  { name: "a full stop ending a one-word id", description: "The Mod ID: ZedFix.", all: ["ZedFix"] },
  { name: "quotes around the id", description: 'Mod ID: "QuotedMod"', all: ["QuotedMod"] },
  { name: "the B42 server-file backslash", description: "B42 Mod ID: \\SlashedMod", all: ["SlashedMod"], b41: [] },
];

const oldLabelCases: IdCase[] = [
  { name: "OLD MOD ID", description: "OLD MOD ID: Legacy\nMOD ID: Current", all: ["Current"] },
  { name: "Old Mod ID", description: "Mod ID: Current\nOld Mod ID: Legacy", all: ["Current"] },
  { name: "Previous Mod ID", description: "Previous Mod ID: Legacy | Mod ID: Current", all: ["Current"] },
  {
    name: "old label with its value on the next line",
    description: "[h3]Old Mod ID:[/h3]\nLegacy\n[h3]Mod ID:[/h3]\nCurrent",
    all: ["Current"],
  },
  { name: "old build-qualified label", description: "Old B41 Mod ID: Legacy\nMod ID: Current", all: ["Current"] },
];

const proseCases: IdCase[] = [
  {
    name: "the label inside a sentence",
    description: "Mod ID: RealOne\nmake sure to set the same Mod ID: across servers.",
    all: ["RealOne"],
  },
  { name: "see below", description: "Mod ID: see below\nMod ID: Actual", all: ["Actual"] },
  {
    name: "a long sentence after the label",
    description: "Mod ID: Copy it into your servertest ini file under Mods\nMod ID: Actual",
    all: ["Actual"],
  },
  { name: "placeholders", description: "Mod ID: N/A\nMod ID: none\nMod ID: TBD\nMod ID: -", all: [] },
  { name: "an annotation alone", description: "Mod ID: (coming soon)", all: [] },
];

const shapeCases: IdCase[] = [
  { name: "a slash", description: "Mod ID: 1299328280/ToadTraits", all: ["1299328280/ToadTraits"] },
  { name: "inner spaces", description: "Mod ID: Authentic Z - Current", all: ["Authentic Z - Current"] },
  { name: "an apostrophe", description: "Mod ID: Brita's Weapon Pack", all: ["Brita's Weapon Pack"] },
  {
    name: "brackets and parentheses inside the word",
    description: "Mod ID: Arsenal(26)GunFighter[MAIN MENU]",
    all: ["Arsenal(26)GunFighter[MAIN MENU]"],
  },
  { name: "all digits", description: "Mod ID: 2392709985", all: ["2392709985"] },
  { name: "dots and dashes", description: "Mod ID: mod.name-v2_final", all: ["mod.name-v2_final"] },
  { name: "comma-separated", description: "Mod IDs: One, Two,Three", all: ["One", "Two", "Three"] },
  { name: "semicolon-separated", description: "Mod IDs: One;Two ; Three", all: ["One", "Two", "Three"] },
  { name: "pipe-separated", description: "Mod IDs: One | Two|Three", all: ["One", "Two", "Three"] },
  { name: "mixed separators", description: "Mod IDs: One, Two; Three | Four", all: ["One", "Two", "Three", "Four"] },
  { name: "non-Latin letters", description: "Mod ID: Зомби_Мод", all: ["Зомби_Мод"] },
];

const textCases: IdCase[] = [
  {
    name: "CRLF and lone CR line endings",
    description: "Workshop ID: 3004\r\nMod ID: CrLf\rMap Folder: CrMap\r\n",
    all: ["CrLf"],
    mapFolders: ["CrMap"],
  },
  {
    name: "Unicode line and paragraph separators end a line",
    description: "Mod ID: First\u2028Mod ID: Second\u2029Map Folder: Sep\u0085Mod ID: Third",
    all: ["First", "Second", "Third"],
    mapFolders: ["Sep"],
  },
  {
    name: "zero-width spaces, byte order marks, tabs and no-break spaces",
    description: "\ufeffMod\u200b ID:\u00a0\tZeroWidth\u200b\nMod ID:\u3000Ideographic",
    all: ["ZeroWidth", "Ideographic"],
  },
  {
    name: "HTML entities",
    description: "Mod ID: Tom&#39;s&nbsp;Pack<br>Mod ID: A&amp;B<br>Mod ID: &#x5A;ed",
    all: ["Tom's Pack", "Zed"],
    rejected: [{ field: "modId", value: "A&B", reason: "invalid-character" }],
  },
  {
    name: "an entity encoding a line break cannot join lines",
    description: "Mod ID: Foo&#10;Mods=Evil",
    all: ["Foo"],
  },
  {
    name: "Russian footer",
    description: "Описание мода.\nWorkshop ID: 3005\nMod ID: RuMod\nСпасибо за подписку!",
    workshopId: "3005",
    all: ["RuMod"],
  },
  {
    name: "Chinese footer with a label glued to Chinese text and full-width separators",
    description: "模组说明\n模组Mod ID：CnMod，CnModExtra\n创意工坊Workshop ID：3006",
    all: ["CnMod", "CnModExtra"],
  },
  {
    name: "German footer with Mod-ID",
    description: "Beschreibung auf Deutsch.\nMod-ID: DeMod",
    all: ["DeMod"],
  },
  {
    name: "BBCode list with url and colour tags",
    description:
      "[list][*][b]Mod ID:[/b] [color=orange]ListMod[/color][*][url=https://x.test]Workshop ID: 3007[/url][/list]",
    all: ["ListMod"],
  },
];

const rejectedCases: IdCase[] = [
  {
    name: "an equals sign",
    description: "Mod ID: Good, Mods=Evil",
    all: ["Good"],
    rejected: [{ field: "modId", value: "Mods=Evil", reason: "equals" }],
  },
  {
    name: "control characters",
    description: "Mod ID: Bell\u0007Mod, Nul\u0000Mod, Fine",
    all: ["Fine"],
    rejected: [
      { field: "modId", value: "Bell\\u0007Mod", reason: "control-character" },
      { field: "modId", value: "Nul\\u0000Mod", reason: "control-character" },
    ],
  },
  {
    name: "too long",
    description: `Mod ID: ${"x".repeat(201)}\nMod ID: ${"y".repeat(200)}`,
    all: ["y".repeat(200)],
    rejected: [{ field: "modId", value: `${"x".repeat(99)}…`, reason: "too-long" }],
  },
  {
    name: "characters the game does not accept",
    description: "Mod ID: Star*Mod\nMod ID: Hash#Tag\nMod ID: Ok",
    all: ["Ok"],
    rejected: [
      { field: "modId", value: "Star*Mod", reason: "invalid-character" },
      { field: "modId", value: "Hash#Tag", reason: "invalid-character" },
    ],
  },
  {
    name: "unsafe map folders",
    description: "Mod ID: MapMod\nMap Folder: Good Town, KY; Bad=Town; Ctl\u0001Town",
    all: ["MapMod"],
    mapFolders: ["Good Town, KY"],
    rejected: [
      { field: "mapFolder", value: "Bad=Town", reason: "equals" },
      { field: "mapFolder", value: "Ctl\\u0001Town", reason: "control-character" },
    ],
  },
  {
    name: "values of another item's block are not reported",
    description: "Workshop ID: 3008\nMod ID: Mine\nWorkshop ID: 3009\nMod ID: Their=s",
    workshopId: "3008",
    all: ["Mine"],
  },
];

describe("parseDescription ids", () => {
  describe("build-qualified labels", () => {
    it.each(buildCases)("$name", checkIds);
  });
  describe("trailing annotations", () => {
    it.each(annotationCases)("$name", checkIds);
  });
  describe("labels that are not the current id", () => {
    it.each(oldLabelCases)("$name", checkIds);
  });
  describe("prose is not an id", () => {
    it.each(proseCases)("$name", checkIds);
  });
  describe("id shapes and separators", () => {
    it.each(shapeCases)("$name", checkIds);
  });
  describe("markup, entities, line breaks and foreign text", () => {
    it.each(textCases)("$name", checkIds);
  });
  describe("rejected values", () => {
    it.each(rejectedCases)("$name", checkIds);
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

describe("describeRejectedValues", () => {
  it.each([
    { name: "none", values: [], expected: "" },
    {
      name: "one of each field",
      values: [
        { field: "modId", value: "Mods=Evil", reason: "equals" },
        { field: "mapFolder", value: "A\\u2028B", reason: "line-separator" },
      ],
      expected: `mod id "Mods=Evil" contains '='; map folder "A\\u2028B" contains a Unicode line or paragraph separator`,
    },
    {
      name: "a character the game does not accept",
      values: [{ field: "modId", value: "Star*Mod", reason: "invalid-character" }],
      expected: 'mod id "Star*Mod" contains a character the game does not accept',
    },
  ] satisfies { name: string; values: ParsedDescription["rejected"]; expected: string }[])(
    "$name",
    ({ values, expected }) => {
      expect(describeRejectedValues(values)).toBe(expected);
    },
  );
});
