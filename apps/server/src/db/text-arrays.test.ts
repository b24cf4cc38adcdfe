import pg from "pg";
import { describe, expect, it } from "vitest";
import { parseTextArray, TEXT_ARRAY } from "./text-arrays.js";

/** pg's general parser of `text[]`, the reference. */
const general = pg.types.getTypeParser(TEXT_ARRAY as unknown as Parameters<typeof pg.types.getTypeParser>[0]) as (
  text: string,
) => unknown;

/** An element as Postgres's `array_out` writes it: quoted when empty, spaced, special or `NULL`. */
function element(value: string): string {
  const quoted = value === "" || /[\s{}",\\]/.test(value) || value.toUpperCase() === "NULL";
  return quoted ? `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"` : value;
}

describe("parseTextArray", () => {
  const read: [string, string, string[]][] = [
    ["an empty array", "{}", []],
    ["workshop ids", "{3100000001,2392709985}", ["3100000001", "2392709985"]],
    [
      "in-game ids as the workshop names them",
      "{Brita,Arsenal(26)GunFighter,tsarslib}",
      ["Brita", "Arsenal(26)GunFighter", "tsarslib"],
    ],
    ["tags with spaces", '{"Build 42",Weapons,"Build 41"}', ["Build 42", "Weapons", "Build 41"]],
    ["an empty string", '{"",a}', ["", "a"]],
    ["the word NULL quoted", '{"NULL","null"}', ["NULL", "null"]],
    ["quotes and backslashes escaped", '{"say \\"hi\\"","C:\\\\mods"}', ['say "hi"', "C:\\mods"]],
    ["braces and commas inside quotes", '{"{a,b}","x}"}', ["{a,b}", "x}"]],
    ["non-ASCII text", '{Карта,"日本 語",émoji😀}', ["Карта", "日本 語", "émoji😀"]],
    ["a single element", "{only}", ["only"]],
    ["a lone quoted element", '{"a b"}', ["a b"]],
  ];
  it.each(read)("reads %s", (_label, text, items) => {
    expect(parseTextArray(text)).toEqual(items);
    expect(general(text)).toEqual(items);
  });

  const left: [string, string][] = [
    ["a NULL element", "{a,NULL,b}"],
    ["nested arrays", "{{a,b},{c,d}}"],
    ["explicit bounds", "[0:1]={a,b}"],
    ["an unterminated quote", '{"a,b}'],
    ["an escape at the end", '{"a\\}'],
    ["text after a quoted element", '{"a"b}'],
    ["an empty unquoted element", "{a,,b}"],
    ["a stray brace", "{a}b,c}"],
    ["not an array", "abc"],
    ["an empty text", ""],
    ["a lone brace", "{"],
  ];
  it.each(left)("leaves %s to the general parser", (_label, text) => {
    expect(parseTextArray(text)).toBeUndefined();
  });

  it("reads every array array_out writes as the general parser does", () => {
    const pieces = ["a", "B42", " ", "", ",", '"', "\\", "{", "}", "NULL", "null", "Build 42", "é", "\t", "x y"];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let round = 0; round < 2000; round++) {
      const items = Array.from({ length: next() % 6 }, () =>
        Array.from({ length: 1 + (next() % 3) }, () => pieces[next() % pieces.length]).join(""),
      );
      const text = `{${items.map(element).join(",")}}`;
      expect(parseTextArray(text), text).toEqual(items);
      expect(general(text), text).toEqual(items);
    }
  });
});
