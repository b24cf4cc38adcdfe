import { describe, expect, it } from "vitest";
import { renderEnvFile } from "./formats.js";

describe("renderEnvFile", () => {
  const lines = {
    mods: ["\\UndeadSurvivor", "\\Tom&Jerry", "\\Maps/Extra", "Mod With Spaces"],
    workshopItems: ["2200148440"],
    map: ["Rosewood Expanded", "Muldraugh, KY"],
  };
  const cases = [
    {
      name: "without an image: the generic three, verbatim and never quoted",
      header: ["# Modpack Collection Service", "# Game version: 42x"],
      lines,
      image: undefined,
      expected: [
        "# Modpack Collection Service",
        "# Game version: 42x",
        "MODS=\\UndeadSurvivor;\\Tom&Jerry;\\Maps/Extra;Mod With Spaces",
        "WORKSHOP_ITEMS=2200148440",
        "MAP=Rosewood Expanded;Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "danixu: sed replacements, \\ & and / escaped; no map variable",
      header: [],
      lines,
      image: "danixu" as const,
      expected: [
        "# For Danixu/project-zomboid-server-docker at 4fdb84b9cbed: GNU sed replacements: \\, & and / escaped with \\",
        "MOD_IDS=\\\\UndeadSurvivor;\\\\Tom\\&Jerry;\\\\Maps\\/Extra;Mod With Spaces",
        "WORKSHOP_IDS=2200148440",
        "",
      ].join("\n"),
    },
    {
      name: "pepecitron: sed replacements whose & the image escapes itself",
      header: [],
      lines,
      image: "pepecitron" as const,
      expected: [
        "# For PepeCitron/projectzomboid-server at a061c9ec719e: GNU sed replacements once the .ini exists: \\ and / escaped with \\ (the image escapes &)",
        "MOD_NAMES=\\\\UndeadSurvivor;\\\\Tom&Jerry;\\\\Maps\\/Extra;Mod With Spaces",
        "MOD_WORKSHOP_IDS=2200148440",
        "",
      ].join("\n"),
    },
    {
      name: "renegade-master: verbatim, with the map",
      header: [],
      lines,
      image: "renegade-master" as const,
      expected: [
        "# For Renegade-Master/zomboid-dedicated-server at 983853e53a17: Python configparser: verbatim",
        "MOD_NAMES=\\UndeadSurvivor;\\Tom&Jerry;\\Maps/Extra;Mod With Spaces",
        "MOD_WORKSHOP_IDS=2200148440",
        "MAP_NAMES=Rosewood Expanded;Muldraugh, KY",
        "",
      ].join("\n"),
    },
    {
      name: "an empty pack gives empty values and the base map",
      header: [],
      lines: { mods: [], workshopItems: [], map: ["Muldraugh, KY"] },
      image: undefined,
      expected: "MODS=\nWORKSHOP_ITEMS=\nMAP=Muldraugh, KY\n",
    },
    {
      name: "quotes, dollars and UTF-8 stay verbatim",
      header: ['# Modpack: "$HOME" ünï'],
      lines: { mods: ['Mod"Q', "Mod$X", "Мод"], workshopItems: ["1"], map: ["Muldraugh, KY"] },
      image: undefined,
      expected: '# Modpack: "$HOME" ünï\nMODS=Mod"Q;Mod$X;Мод\nWORKSHOP_ITEMS=1\nMAP=Muldraugh, KY\n',
    },
  ];
  it.each(cases)("$name", ({ header, lines, image, expected }) => {
    expect(renderEnvFile(header, lines, image)).toBe(expected);
  });
});
