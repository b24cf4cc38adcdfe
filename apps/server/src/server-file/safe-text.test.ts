import { describe, expect, it } from "vitest";
import {
  commentText,
  describeReason,
  MAX_VALUE_LENGTH,
  partitionValues,
  printable,
  unsafeReason,
} from "./safe-text.js";

describe("unsafeReason", () => {
  it.each([
    { value: "ModA", reason: undefined },
    { value: "Raven Creek, KY", reason: undefined },
    { value: "1299328280/ToadTraits", reason: undefined },
    { value: "Arsenal(26)GunFighter[MAIN MENU]", reason: undefined },
    { value: "Zed's Pack", reason: undefined },
    { value: "a".repeat(MAX_VALUE_LENGTH), reason: undefined },
    { value: "a".repeat(MAX_VALUE_LENGTH + 1), reason: "too-long" },
    { value: "A;B", reason: "semicolon" },
    { value: "Mods=Evil", reason: "equals" },
    { value: "Nul\u0000", reason: "control-character" },
    { value: "Line\nFeed", reason: "control-character" },
    { value: "Carriage\rReturn", reason: "control-character" },
    { value: "Tab\tbed", reason: "control-character" },
    { value: "Del\u007f", reason: "control-character" },
    { value: "C1\u009b", reason: "control-character" },
    { value: "Next\u0085Line", reason: "line-separator" },
    { value: "Line\u2028Sep", reason: "line-separator" },
    { value: "Para\u2029Sep", reason: "line-separator" },
  ])("$value -> $reason", ({ value, reason }) => {
    expect(unsafeReason(value)).toBe(reason);
  });
});

describe("partitionValues", () => {
  it.each([
    { name: "empty list", values: [], usable: [], rejected: [] },
    { name: "trims, drops blanks and repeats", values: [" A ", "", "  ", "B", "A"], usable: ["A", "B"], rejected: [] },
    {
      name: "keeps the usable ones and reports the rest in order",
      values: ["Good", "Bad;Id", "Mods=Evil", "Ctl\u0001", "Sep\u2028Id", "Fine"],
      usable: ["Good", "Fine"],
      rejected: [
        { value: "Bad;Id", reason: "semicolon" },
        { value: "Mods=Evil", reason: "equals" },
        { value: "Ctl\\u0001", reason: "control-character" },
        { value: "Sep\\u2028Id", reason: "line-separator" },
      ],
    },
    {
      name: "a line break at either end is trimmed, not refused",
      values: ["\nEdge\r\n"],
      usable: ["Edge"],
      rejected: [],
    },
  ])("$name", ({ values, usable, rejected }) => {
    expect(partitionValues(values)).toEqual({ usable, rejected });
  });
});

describe("printable", () => {
  it.each([
    { value: "plain", max: 100, expected: "plain" },
    { value: "a\u0000b\nc\u2029", max: 100, expected: "a\\u0000b\\u000ac\\u2029" },
    { value: "abcdef", max: 4, expected: "abc…" },
    { value: "🧟🧟🧟", max: 2, expected: "🧟…" },
  ])("$value", ({ value, max, expected }) => {
    expect(printable(value, max)).toBe(expected);
  });
});

describe("commentText", () => {
  it.each([
    { value: "My Pack", expected: "My Pack" },
    { value: "Evil\nMods=Hacked", expected: "EvilMods=Hacked" },
    { value: "a\r\u0000\u0085\u2028\u2029\tb", expected: "ab" },
    { value: "  padded  ", expected: "padded" },
  ])("$value", ({ value, expected }) => {
    expect(commentText(value)).toBe(expected);
  });
});

describe("describeReason", () => {
  it.each([
    { reason: "semicolon", expected: "contains ';'" },
    { reason: "equals", expected: "contains '='" },
    { reason: "too-long", expected: `is longer than ${MAX_VALUE_LENGTH} characters` },
  ] as const)("$reason", ({ reason, expected }) => {
    expect(describeReason(reason)).toBe(expected);
  });
});
