import { describe, expect, it } from "vitest";
import {
  exportFileName,
  type GameVersion,
  type RenderInput,
  type RenderMod,
  renderServerFile,
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
