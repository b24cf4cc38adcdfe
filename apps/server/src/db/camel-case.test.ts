import { CamelCasePlugin, type QueryId, type UnknownRow } from "kysely";
import { describe, expect, it } from "vitest";
import { RowCamelCasePlugin } from "./camel-case.js";

const queryId = { queryId: "test" } as QueryId;
const mapped = async (plugin: CamelCasePlugin, rows: UnknownRow[]) =>
  (await plugin.transformResult({ queryId, result: { rows } })).rows;

describe("RowCamelCasePlugin", () => {
  const created = new Date("2026-11-22T21:06:47.713Z");
  const rows: [string, UnknownRow][] = [
    ["plain columns", { id: "a", workshop_id: "3100000001", is_active: true, time_updated: null, parser_version: 1 }],
    ["a Date", { created_at: created }],
    ["arrays of text", { platform_mod_ids: ["Brita", "Arsenal(26)GunFighter"], mod_ids_b41: null, tags: [] }],
    ["a JSON object", { metadata: { server_name: "pz", nested_object: { max_players: 32 }, list_of: [1, 2] } }],
    ["an array of JSON objects", { findings: [{ finding_code: "x", mod_id: "y" }, "plain", 3] }],
    ["a null-prototype object", { raw_value: Object.assign(Object.create(null), { some_key: 1 }) }],
    ["a Buffer", { file_bytes: Buffer.from("ini") }],
    ["keys already camel", { addedAt: created, sortValue: "2026", cursorId: "b" }],
  ];

  it.each(rows)("maps %s as CamelCasePlugin does", async (_label, row) => {
    expect(await mapped(new RowCamelCasePlugin(), [row])).toEqual(await mapped(new CamelCasePlugin(), [row]));
  });

  it("maps every row of a result, and each shape of result by its own columns", async () => {
    const plugin = new RowCamelCasePlugin();
    const catalogue = [
      { workshop_id: "1", tags: ["Map"], created_at: created },
      { workshop_id: "2", tags: [], created_at: null },
      { workshop_id: "3", tags: ["Weapons"], created_at: created },
    ];
    const links = [{ mod_id: "m", added_at: created, is_active: false }];
    for (let round = 0; round < 2; round++) {
      expect(await mapped(plugin, catalogue)).toEqual(await mapped(new CamelCasePlugin(), catalogue));
      expect(await mapped(plugin, links)).toEqual(await mapped(new CamelCasePlugin(), links));
    }
    expect(await mapped(plugin, [])).toEqual([]);
  });

  it("keeps a column named __proto__ a key, as CamelCasePlugin names it, not the row's prototype", async () => {
    const row = JSON.parse('{"__proto__": {"polluted": true}, "plain_key": 1}') as UnknownRow;
    const [result] = await mapped(new RowCamelCasePlugin(), [row]);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(result).toEqual((await mapped(new CamelCasePlugin(), [row]))[0]);
    expect(Object.keys(result ?? {})).toEqual(["_Proto", "plainKey"]);
    expect((result as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("passes arrays without objects on as they are, and copies the ones it maps", async () => {
    const tags = ["Weapons", "Map"];
    const findings = [{ finding_code: "x" }];
    const [row] = await mapped(new RowCamelCasePlugin(), [{ tags, findings }]);
    expect(row?.tags).toBe(tags);
    expect(row?.findings).not.toBe(findings);
    expect(row?.findings).toEqual([{ findingCode: "x" }]);
  });
});
