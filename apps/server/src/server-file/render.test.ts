import { describe, expect, it } from "vitest";
import { type BuildModIds, idsForBuild } from "../workshop/description.js";
import {
  exportFileName,
  type GameVersion,
  type RenderInput,
  type RenderMod,
  type RenderRejection,
  renderServerFile,
  renderServerFileWithReport,
  slugify,
} from "./render.js";

const GENERATED_AT = new Date("2024-05-06T07:08:09.000Z");
const VERSIONS: GameVersion[] = ["41x", "42x"];

function mod(id: string, workshopId: string, platformModIds: string[], mapFolders: string[] = []): RenderMod {
  return { id, name: `Mod ${id}`, workshopId, platformModIds, mapFolders };
}

function input(overrides: Partial<RenderInput> = {}): RenderInput {
  return {
    modpack: { id: "pack-1", name: "My Pack" },
    version: "41x",
    generatedAt: GENERATED_AT,
    mods: [],
    selected: {},
    ...overrides,
  };
}

/** Returns the value of a `key=` line from the rendered file. */
function line(text: string, key: "Mods" | "WorkshopItems" | "Map"): string {
  const found = text.split("\n").find((l) => l.startsWith(`${key}=`));
  if (found === undefined) throw new Error(`missing ${key}= line`);
  return found.slice(key.length + 1);
}

/** Writes in-game ids the way the given version expects them. */
function ids(version: GameVersion, ...values: string[]): string {
  const prefix = version === "42x" ? "\\" : "";
  return values.map((v) => `${prefix}${v}`).join(";");
}

interface BodyCase {
  name: string;
  input: Pick<RenderInput, "mods" | "selected">;
  mods: string[];
  workshopItems: string;
  map: string;
}

const bodyCases: BodyCase[] = [
  {
    name: "keeps the configured load order",
    input: {
      mods: [mod("c", "300", ["ModC"]), mod("a", "100", ["ModA"]), mod("b", "200", ["ModB"])],
      selected: {},
    },
    mods: ["ModC", "ModA", "ModB"],
    workshopItems: "300;100;200",
    map: "Muldraugh, KY",
  },
  {
    name: "selects all platform ids when the mod has no selection key, in the mod's order",
    input: { mods: [mod("a", "100", ["A1", "A2", "A3"])], selected: {} },
    mods: ["A1", "A2", "A3"],
    workshopItems: "100",
    map: "Muldraugh, KY",
  },
  {
    name: "drops a deselected in-game id and keeps the mod's own order",
    input: { mods: [mod("a", "100", ["A1", "A2", "A3"])], selected: { a: ["A3", "A1"] } },
    mods: ["A1", "A3"],
    workshopItems: "100",
    map: "Muldraugh, KY",
  },
  {
    name: "ignores selected ids the mod does not declare",
    input: { mods: [mod("a", "100", ["A1"])], selected: { a: ["A1", "Ghost"] } },
    mods: ["A1"],
    workshopItems: "100",
    map: "Muldraugh, KY",
  },
  {
    name: "drops a mod with an empty selection together with its workshop id and maps",
    input: {
      mods: [mod("a", "100", ["A1"]), mod("b", "200", ["B1"], ["BMap"]), mod("c", "300", ["C1"])],
      selected: { b: [] },
    },
    mods: ["A1", "C1"],
    workshopItems: "100;300",
    map: "Muldraugh, KY",
  },
  {
    name: "drops a mod whose selection matches none of its ids",
    input: { mods: [mod("a", "100", ["A1"]), mod("b", "200", ["B1"])], selected: { b: ["Other"] } },
    mods: ["A1"],
    workshopItems: "100",
    map: "Muldraugh, KY",
  },
  {
    name: "drops a mod with no platformModIds together with its workshop id",
    input: { mods: [mod("a", "100", ["A1"]), mod("b", "200", [], ["BMap"])], selected: {} },
    mods: ["A1"],
    workshopItems: "100",
    map: "Muldraugh, KY",
  },
  {
    name: "removes a duplicate in-game id across mods (first occurrence wins)",
    input: { mods: [mod("a", "100", ["Shared", "A1"]), mod("b", "200", ["B1", "Shared"])], selected: {} },
    mods: ["Shared", "A1", "B1"],
    workshopItems: "100;200",
    map: "Muldraugh, KY",
  },
  {
    name: "removes a duplicate workshop id",
    input: { mods: [mod("a", "100", ["A1"]), mod("b", "100", ["B1"]), mod("c", "300", ["C1"])], selected: {} },
    mods: ["A1", "B1", "C1"],
    workshopItems: "100;300",
    map: "Muldraugh, KY",
  },
  {
    name: "lists map folders in order with Muldraugh, KY last and only once",
    input: {
      mods: [
        mod("a", "100", ["A1"], ["Raven Creek", "Muldraugh, KY"]),
        mod("b", "200", ["B1"], ["Bedford Falls", "Raven Creek"]),
        mod("c", "300", ["C1"], [" Muldraugh, KY "]),
      ],
      selected: {},
    },
    mods: ["A1", "B1", "C1"],
    workshopItems: "100;200;300",
    map: "Raven Creek;Bedford Falls;Muldraugh, KY",
  },
  {
    name: "drops ids, workshop ids and map folders containing ; CR or LF",
    input: {
      mods: [
        mod("a", "100", ["Good", "Bad;Mods=Evil", "Cr\rId", "Lf\nId"], ["Map;Evil", "Map\nEvil", "GoodMap"]),
        mod("b", "200;999", ["B1"]),
      ],
      selected: {},
    },
    mods: ["Good", "B1"],
    workshopItems: "100",
    map: "GoodMap;Muldraugh, KY",
  },
  {
    name: "drops a mod whose only ids are unsafe",
    input: { mods: [mod("a", "100", ["A;B"]), mod("b", "200", ["B1"])], selected: {} },
    mods: ["B1"],
    workshopItems: "200",
    map: "Muldraugh, KY",
  },
  {
    name: "trims whitespace and drops blank values",
    input: { mods: [mod("a", " 100 ", [" A1 ", "   ", "A2\t"], ["  MapA  ", ""])], selected: { a: ["A1", " A2 "] } },
    mods: ["A1", "A2"],
    workshopItems: "100",
    map: "MapA;Muldraugh, KY",
  },
  {
    name: "does not treat inherited object keys as selections",
    input: { mods: [mod("constructor", "100", ["C1"]), mod("toString", "200", ["T1"])], selected: {} },
    mods: ["C1", "T1"],
    workshopItems: "100;200",
    map: "Muldraugh, KY",
  },
  {
    name: "renders an empty modpack",
    input: { mods: [], selected: {} },
    mods: [],
    workshopItems: "",
    map: "Muldraugh, KY",
  },
];

describe("renderServerFile body", () => {
  for (const version of VERSIONS) {
    describe(version, () => {
      it.each(bodyCases)("$name", (c) => {
        const text = renderServerFile(input({ ...c.input, version }));
        expect(line(text, "Mods")).toBe(ids(version, ...c.mods));
        expect(line(text, "WorkshopItems")).toBe(c.workshopItems);
        expect(line(text, "Map")).toBe(c.map);
      });
    });
  }
});

interface BuildCase {
  name: string;
  mods: BuildMod[];
  selected: Record<string, string[]>;
  "41x": { mods: string[]; workshopItems: string };
  "42x": { mods: string[]; workshopItems: string };
}

type BuildMod = RenderMod & { buildModIds?: Partial<BuildModIds> };

function buildMod(id: string, workshopId: string, b41: string[] | undefined, b42: string[] | undefined): BuildMod {
  const buildModIds: Partial<BuildModIds> = {};
  if (b41 !== undefined) buildModIds["41x"] = b41;
  if (b42 !== undefined) buildModIds["42x"] = b42;
  return { ...mod(id, workshopId, [...new Set([...(b41 ?? []), ...(b42 ?? [])])]), buildModIds };
}

const buildCases: BuildCase[] = [
  {
    name: "each file uses its own build's ids",
    mods: [buildMod("a", "100", ["Loot41"], ["Loot42"])],
    selected: {},
    "41x": { mods: ["Loot41"], workshopItems: "100" },
    "42x": { mods: ["Loot42"], workshopItems: "100" },
  },
  {
    name: "ids common to both builds appear in both files",
    mods: [buildMod("a", "100", ["Core", "Old"], ["Core", "New"])],
    selected: {},
    "41x": { mods: ["Core", "Old"], workshopItems: "100" },
    "42x": { mods: ["Core", "New"], workshopItems: "100" },
  },
  {
    name: "a mod with no ids for a build is left out of that file",
    mods: [buildMod("a", "100", [], ["Only42"]), mod("b", "200", ["Both"])],
    selected: {},
    "41x": { mods: ["Both"], workshopItems: "200" },
    "42x": { mods: ["Only42", "Both"], workshopItems: "100;200" },
  },
  {
    name: "the selection filters each build's ids",
    mods: [buildMod("a", "100", ["A41", "Extra41"], ["A42", "Extra42"])],
    selected: { a: ["A41", "A42"] },
    "41x": { mods: ["A41"], workshopItems: "100" },
    "42x": { mods: ["A42"], workshopItems: "100" },
  },
  {
    name: "a selection naming only one build's ids leaves the mod out of the other file",
    mods: [buildMod("a", "100", ["A41"], ["A42"]), mod("b", "200", ["B"])],
    selected: { a: ["A42"] },
    "41x": { mods: ["B"], workshopItems: "200" },
    "42x": { mods: ["A42", "B"], workshopItems: "100;200" },
  },
  {
    name: "a build missing from buildModIds falls back to every id",
    mods: [buildMod("a", "100", undefined, ["A42"])],
    selected: {},
    "41x": { mods: ["A42"], workshopItems: "100" },
    "42x": { mods: ["A42"], workshopItems: "100" },
  },
  {
    name: "unsafe per-build ids are refused like any other",
    mods: [buildMod("a", "100", ["A41", "Bad;41"], ["A42", "Bad=42"])],
    selected: {},
    "41x": { mods: ["A41"], workshopItems: "100" },
    "42x": { mods: ["A42"], workshopItems: "100" },
  },
];

describe("renderServerFile of each build's ids (idsForBuild)", () => {
  for (const version of VERSIONS) {
    describe(version, () => {
      it.each(buildCases)("$name", (c) => {
        const mods = c.mods.map((m) => ({ ...m, platformModIds: idsForBuild(m, version) }));
        const text = renderServerFile(input({ mods, selected: c.selected, version }));
        expect(line(text, "Mods")).toBe(ids(version, ...c[version].mods));
        expect(line(text, "WorkshopItems")).toBe(c[version].workshopItems);
      });
    });
  }
});

interface RejectionCase {
  name: string;
  mods: RenderMod[];
  selected?: Record<string, string[]>;
  rejected: RenderRejection[];
}

const rejectionCases: RejectionCase[] = [
  { name: "nothing to refuse", mods: [mod("a", "100", ["A"], ["MapA"])], rejected: [] },
  {
    name: "every unsafe kind of in-game id",
    mods: [mod("a", "100", ["A", "B;C", "D=E", "F\u0000G", "H\u2028I", "J\u0085K", "L".repeat(201)])],
    rejected: [
      { modId: "a", field: "platformModId", value: "B;C", reason: "semicolon" },
      { modId: "a", field: "platformModId", value: "D=E", reason: "equals" },
      { modId: "a", field: "platformModId", value: "F\\u0000G", reason: "control-character" },
      { modId: "a", field: "platformModId", value: "H\\u2028I", reason: "line-separator" },
      { modId: "a", field: "platformModId", value: "J\\u0085K", reason: "line-separator" },
      { modId: "a", field: "platformModId", value: `${"L".repeat(99)}…`, reason: "too-long" },
    ],
  },
  {
    name: "unsafe workshop id and map folders of an included mod",
    mods: [mod("a", "100\n200", ["A"], ["Good", "Map=Evil", "Map\u2029Evil"])],
    rejected: [
      { modId: "a", field: "workshopId", value: "100\\u000a200", reason: "control-character" },
      { modId: "a", field: "mapFolder", value: "Map=Evil", reason: "equals" },
      { modId: "a", field: "mapFolder", value: "Map\\u2029Evil", reason: "line-separator" },
    ],
  },
  {
    name: "a mod left out by its selection reports only its ids",
    mods: [mod("a", "1;2", ["A", "A;B"], ["Map;Evil"])],
    selected: { a: [] },
    rejected: [{ modId: "a", field: "platformModId", value: "A;B", reason: "semicolon" }],
  },
  {
    name: "each mod's refusals name that mod",
    mods: [mod("a", "100", ["A="]), mod("b", "200", ["B\r"]), mod("c", "300", ["C;"])],
    rejected: [
      { modId: "a", field: "platformModId", value: "A=", reason: "equals" },
      { modId: "c", field: "platformModId", value: "C;", reason: "semicolon" },
    ],
  },
];

describe("renderServerFileWithReport", () => {
  it.each(rejectionCases)("$name", (c) => {
    const result = renderServerFileWithReport(input({ mods: c.mods, selected: c.selected ?? {} }));
    expect(result.rejected).toEqual(c.rejected);
    expect(result.content).toBe(renderServerFile(input({ mods: c.mods, selected: c.selected ?? {} })));
  });
});

describe("no workshop or user text adds a line to the file", () => {
  const hostile = [
    "X\nMods=Evil",
    "X\rMods=Evil",
    "X\r\nMods=Evil",
    "X\u0085Mods=Evil",
    "X\u2028Mods=Evil",
    "X\u2029Mods=Evil",
    "X\u000bMods=Evil",
    "X\u000cMods=Evil",
    "X\u0000Mods=Evil",
    "X;Mods=Evil",
    "Mods=Evil",
    "\nMods=Evil",
  ];
  for (const version of VERSIONS) {
    it.each(hostile)(`${version} %j`, (value) => {
      const text = renderServerFile(
        input({
          version,
          serviceName: value,
          modpack: { id: value, name: value },
          comments: [value, "A note"],
          mods: [mod(value, value, [value, "Safe"], [value]), mod("b", value, [value])],
        }),
      );
      const lines = text.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/);
      expect(lines.filter((l) => !l.startsWith("#") && l !== "").map((l) => l.split("=")[0])).toEqual([
        "Mods",
        "WorkshopItems",
        "Map",
      ]);
      expect(lines.filter((l) => /^\s*Mods\s*=/i.test(l))).toEqual([`Mods=${ids(version, "Safe")}`]);
      expect(line(text, "WorkshopItems")).toBe("");
      expect(line(text, "Map")).toBe("Muldraugh, KY");
      expect([...text].filter((c) => c !== "\n" && /[\p{Cc}\u2028\u2029]/u.test(c))).toEqual([]);
    });
  }
});

describe("renderServerFile comments", () => {
  it.each([
    { name: "none", comments: undefined, expected: [] },
    {
      name: "one per entry",
      comments: ["Error: a is missing", "Warning: b loads early"],
      expected: ["# Error: a is missing", "# Warning: b loads early"],
    },
    {
      name: "line breaks removed and blanks skipped",
      comments: ["Two\nlines", " ", "\u2028"],
      expected: ["# Twolines"],
    },
  ])("$name", ({ comments, expected }) => {
    const text = renderServerFile(input({ mods: [mod("a", "100", ["A"])], ...(comments ? { comments } : {}) }));
    const header = text.split("\n").filter((l) => l.startsWith("#"));
    expect(header.slice(4)).toEqual(expected);
    expect(line(text, "Mods")).toBe("A");
  });
});

describe("renderServerFile full text", () => {
  const mods = [
    mod("a", "100", ["ModA", "ModAExtra"], ["Raven Creek"]),
    mod("b", "200", ["ModB"]),
    mod("c", "300", ["ModC"], ["Muldraugh, KY"]),
    mod("d", "100", ["ModA", "ModD"], ["Raven Creek", "Bedford Falls"]),
  ];
  const selected = { a: ["ModA"], c: [] };

  const cases: { name: string; input: RenderInput; expected: string }[] = [
    {
      name: "41x with selections, duplicates and maps",
      input: input({ version: "41x", mods, selected }),
      expected: [
        "# Modpack Collection Service",
        "# Modpack: My Pack (pack-1)",
        "# Game version: 41x",
        "# Generated: 2024-05-06T07:08:09.000Z",
        "Mods=ModA;ModB;ModD",
        "WorkshopItems=100;200",
        "Map=Raven Creek;Bedford Falls;Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "42x with selections, duplicates and maps",
      input: input({ version: "42x", mods, selected }),
      expected: [
        "# Modpack Collection Service",
        "# Modpack: My Pack (pack-1)",
        "# Game version: 42x",
        "# Generated: 2024-05-06T07:08:09.000Z",
        "Mods=\\ModA;\\ModB;\\ModD",
        "WorkshopItems=100;200",
        "Map=Raven Creek;Bedford Falls;Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "41x empty modpack",
      input: input({ version: "41x" }),
      expected: [
        "# Modpack Collection Service",
        "# Modpack: My Pack (pack-1)",
        "# Game version: 41x",
        "# Generated: 2024-05-06T07:08:09.000Z",
        "Mods=",
        "WorkshopItems=",
        "Map=Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "42x empty modpack with a custom service name",
      input: input({ version: "42x", serviceName: "Acme Packs" }),
      expected: [
        "# Acme Packs",
        "# Modpack: My Pack (pack-1)",
        "# Game version: 42x",
        "# Generated: 2024-05-06T07:08:09.000Z",
        "Mods=",
        "WorkshopItems=",
        "Map=Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "41x hostile modpack name",
      input: input({
        version: "41x",
        modpack: { id: "pack\r\n-2", name: "Evil\nMods=Hacked\r\nWorkshopItems=1\u2028\u0000\u0085Pack" },
        mods: [mod("a", "100", ["ModA"])],
      }),
      expected: [
        "# Modpack Collection Service",
        "# Modpack: EvilMods=HackedWorkshopItems=1Pack (pack-2)",
        "# Game version: 41x",
        "# Generated: 2024-05-06T07:08:09.000Z",
        "Mods=ModA",
        "WorkshopItems=100",
        "Map=Muldraugh, KY",
        "",
      ].join("\n"),
    },
  ];

  it.each(cases)("$name", (c) => {
    expect(renderServerFile(c.input)).toBe(c.expected);
  });
});

describe("renderServerFile header", () => {
  it.each(VERSIONS)("%s header has name, id, version and ISO time, one # line each", (version) => {
    const text = renderServerFile(input({ version, modpack: { id: "abc-123", name: "Zed Survival" } }));
    const header = text.split("\n").filter((l) => l.startsWith("#"));
    expect(header).toHaveLength(4);
    expect(header[0]).toBe("# Modpack Collection Service");
    expect(header.join("\n")).toContain("Zed Survival");
    expect(header.join("\n")).toContain("abc-123");
    expect(header.join("\n")).toContain(version);
    expect(header.join("\n")).toContain(GENERATED_AT.toISOString());
    expect(text.startsWith("# ")).toBe(true);
  });

  it.each(VERSIONS)("%s without a generation time: no Generated line, the same bytes every time", (version) => {
    const { generatedAt: _time, ...timeless } = input({ version, mods: [mod("a", "100", ["ModA"], ["AMap"])] });
    const first = renderServerFileWithReport(timeless);
    expect(first.content).not.toContain("# Generated:");
    expect(first.header).toEqual([
      "# Modpack Collection Service",
      "# Modpack: My Pack (pack-1)",
      `# Game version: ${version}`,
    ]);
    expect(first.lines).toEqual({
      mods: [ids(version, "ModA")],
      workshopItems: ["100"],
      map: ["AMap", "Muldraugh, KY"],
    });
    expect(renderServerFileWithReport(timeless).content).toBe(first.content);
  });

  it.each(VERSIONS)("%s hostile names cannot inject lines", (version) => {
    const text = renderServerFile(
      input({
        version,
        serviceName: "Svc\nMap=Evil",
        modpack: { id: "id\rMods=Evil", name: "Pack\r\nMods=Evil\nWorkshopItems=666\u2029\tX" },
        mods: [mod("a", "100", ["ModA"])],
      }),
    );
    const lines = text.split("\n");
    expect(lines).toHaveLength(8);
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, 4).every((l) => l.startsWith("# "))).toBe(true);
    expect(lines.filter((l) => l.startsWith("Mods="))).toEqual([`Mods=${ids(version, "ModA")}`]);
    expect(lines.filter((l) => l.startsWith("WorkshopItems="))).toEqual(["WorkshopItems=100"]);
    expect(lines.filter((l) => l.startsWith("Map="))).toEqual(["Map=Muldraugh, KY"]);
    expect(text).not.toMatch(/[\r\u2028\u2029\t]/);
  });

  it("ends every line with LF and the file with a newline", () => {
    const text = renderServerFile(input({ mods: [mod("a", "100", ["ModA"])] }));
    expect(text.endsWith("\n")).toBe(true);
    expect(text.endsWith("\n\n")).toBe(false);
    expect(text).not.toContain("\r");
  });
});

describe("slugify", () => {
  it.each([
    { name: "spaces", input: "My Cool Pack", expected: "my-cool-pack" },
    { name: "punctuation runs", input: "Zed's -- Survival!!! (v2.0)", expected: "zed-s-survival-v2-0" },
    { name: "leading and trailing junk", input: "  --Hello World--  ", expected: "hello-world" },
    { name: "diacritics folded", input: "Café Déjà Vu Ñandú Straße", expected: "cafe-deja-vu-nandu-stra-e" },
    { name: "compatibility forms folded", input: "Ｆｕｌｌｗｉｄｔｈ ﬁle", expected: "fullwidth-file" },
    { name: "emoji only falls back", input: "🧟🔥🧟", expected: "modpack" },
    { name: "empty falls back", input: "", expected: "modpack" },
    { name: "punctuation only falls back", input: "!!! ---", expected: "modpack" },
    { name: "emoji mixed in", input: "🧟 Zombie 🔥 Pack", expected: "zombie-pack" },
    { name: "digits kept", input: "Build 41 Pack", expected: "build-41-pack" },
    { name: "very long truncated to 60", input: "a".repeat(100), expected: "a".repeat(60) },
    {
      name: "truncation does not leave a trailing dash",
      input: `${"a".repeat(59)} bbbb`,
      expected: "a".repeat(59),
    },
  ])("$name", ({ input: name, expected }) => {
    const slug = slugify(name);
    expect(slug).toBe(expected);
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });
});

describe("exportFileName", () => {
  it.each([
    { name: "My Cool Pack", version: "41x" as const, expected: "my-cool-pack-41x.ini" },
    { name: "Café Pack", version: "42x" as const, expected: "cafe-pack-42x.ini" },
    { name: "🧟", version: "42x" as const, expected: "modpack-42x.ini" },
    { name: "../../etc/passwd", version: "41x" as const, expected: "etc-passwd-41x.ini" },
  ])("$name ($version) -> $expected", ({ name, version, expected }) => {
    expect(exportFileName(name, version)).toBe(expected);
  });
});
