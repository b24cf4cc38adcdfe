import { describe, expect, it } from "vitest";
import { renderEnvFile } from "./formats.js";

describe("renderEnvFile", () => {
  const cases = [
    {
      name: "42x ids keep their backslash, map names keep their spaces, values are never quoted",
      header: ["# Modpack Collection Service", "# Game version: 42x"],
      lines: {
        mods: ["\\Brita", "\\Brita_2"],
        workshopItems: ["2200148440"],
        map: ["Rosewood Expanded", "Muldraugh, KY"],
      },
      expected: [
        "# Modpack Collection Service",
        "# Game version: 42x",
        "MODS=\\Brita;\\Brita_2",
        "WORKSHOP_ITEMS=2200148440",
        "MAP=Rosewood Expanded;Muldraugh, KY",
        "MOD_IDS=\\Brita;\\Brita_2",
        "WORKSHOP_IDS=2200148440",
        "MOD_NAMES=\\Brita;\\Brita_2",
        "MOD_WORKSHOP_IDS=2200148440",
        "MAP_NAMES=Rosewood Expanded;Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "an empty pack gives empty values and the base map",
      header: [],
      lines: { mods: [], workshopItems: [], map: ["Muldraugh, KY"] },
      expected:
        "MODS=\nWORKSHOP_ITEMS=\nMAP=Muldraugh, KY\nMOD_IDS=\nWORKSHOP_IDS=\nMOD_NAMES=\nMOD_WORKSHOP_IDS=\nMAP_NAMES=Muldraugh, KY\n",
    },
    {
      name: "quotes, dollars and UTF-8 stay verbatim",
      header: ['# Modpack: "$HOME" ünï'],
      lines: { mods: ['Mod"Q', "Mod$X", "Мод"], workshopItems: ["1"], map: ["Muldraugh, KY"] },
      expected:
        '# Modpack: "$HOME" ünï\nMODS=Mod"Q;Mod$X;Мод\nWORKSHOP_ITEMS=1\nMAP=Muldraugh, KY\nMOD_IDS=Mod"Q;Mod$X;Мод\nWORKSHOP_IDS=1\nMOD_NAMES=Mod"Q;Mod$X;Мод\nMOD_WORKSHOP_IDS=1\nMAP_NAMES=Muldraugh, KY\n',
    },
  ];
  it.each(cases)("$name", ({ header, lines, expected }) => {
    expect(renderEnvFile(header, lines)).toBe(expected);
  });
});
