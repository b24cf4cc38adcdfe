import fc from "fast-check";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isoString, parseIsoTimestamptz } from "./timestamps.js";

describe("parseIsoTimestamptz", () => {
  const read: [string, string][] = [
    ["2026-11-22 21:06:47+00", "2026-11-22T21:06:47.000Z"],
    ["2026-11-22 21:06:47.7+00", "2026-11-22T21:06:47.700Z"],
    ["2026-11-22 21:06:47.71+00", "2026-11-22T21:06:47.710Z"],
    ["2026-11-22 21:06:47.713+00", "2026-11-22T21:06:47.713Z"],
    ["2026-11-22 21:06:47.7139+00", "2026-11-22T21:06:47.713Z"],
    ["2026-11-22 21:06:47.713999+00", "2026-11-22T21:06:47.713Z"],
    ["2026-11-22 21:06:47.000001+00", "2026-11-22T21:06:47.000Z"],
    ["2026-11-22 23:30:00.5+02", "2026-11-22T21:30:00.500Z"],
    ["2026-11-22 02:00:00-03", "2026-11-22T05:00:00.000Z"],
    ["2026-11-23 02:36:47.713+05:30", "2026-11-22T21:06:47.713Z"],
    ["2026-11-22 11:36:47-09:30", "2026-11-22T21:06:47.000Z"],
    ["1883-11-18 12:00:00-07:52:58", "1883-11-18T19:52:58.000Z"],
    ["2024-02-29 00:00:00+00", "2024-02-29T00:00:00.000Z"],
    ["2026-01-01 00:30:00+01", "2025-12-31T23:30:00.000Z"],
    ["1000-01-01 00:00:00+00", "1000-01-01T00:00:00.000Z"],
    ["9999-12-31 23:59:59.999999+00", "9999-12-31T23:59:59.999Z"],
  ];
  it.each(read)("reads %s as %s", (text, iso) => {
    expect(parseIsoTimestamptz(text)?.toISOString()).toBe(iso);
  });

  const general = [
    "infinity",
    "-infinity",
    "0099-01-01 00:00:00+00",
    "0999-12-31 23:59:59+00",
    "10000-01-01 00:00:00+00",
    "2026-11-22 21:06:47+00 BC",
    "2026-11-22 21:06:47.1234567+00",
    "2026-11-22 21:06:47.+00",
    "2026-11-22T21:06:47+00",
    "2026-11-22 21:06:47Z",
    "2026-11-22 21:06:47+0",
    "2026-11-22 21:06:47+05:3",
    "2026-11-22 21:06:47+05:30:",
    "2026-11-22 21:06:47+05:30:00:00",
    "2026-11-22 21:06",
    "2026-11-22",
    "",
  ];
  it.each(general)("leaves %j to the general parser", (text) => {
    expect(parseIsoTimestamptz(text)).toBeUndefined();
  });

  it("agrees with pg's own parser on the forms it reads", () => {
    const pgParse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;
    for (const [text] of read) expect(parseIsoTimestamptz(text)?.getTime()).toBe(pgParse(text).getTime());
  });

  it("agrees with pg's own parser on any time of years 1000 to 9999, any fraction and offset", () => {
    const pgParse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;
    const two = (value: number) => String(value).padStart(2, "0");
    const postgresText = fc
      .record({
        // A wall-clock time, written as Postgres writes it (its date and time fields, then the fraction and offset).
        wall: fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(10000, 0, 1) - 1 }),
        fraction: fc.stringMatching(/^(\.[0-9]{1,6})?$/),
        offset: fc.record({
          sign: fc.constantFrom("+", "-"),
          hours: fc.integer({ min: 0, max: 15 }),
          minutes: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
          seconds: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
        }),
      })
      .map(({ wall, fraction, offset }) => {
        const date = new Date(wall);
        const minutes = offset.minutes ?? (offset.seconds === undefined ? undefined : 0);
        return (
          `${String(date.getUTCFullYear())}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ` +
          `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}${fraction}` +
          `${offset.sign}${two(offset.hours)}${minutes === undefined ? "" : `:${two(minutes)}`}` +
          `${offset.seconds === undefined ? "" : `:${two(offset.seconds)}`}`
        );
      });
    fc.assert(
      fc.property(postgresText, (text) => {
        expect(parseIsoTimestamptz(text)?.getTime()).toBe(pgParse(text).getTime());
      }),
      { numRuns: 20_000 },
    );
  });
});

describe("isoString", () => {
  const written: [string, number][] = [
    ["the epoch", 0],
    ["a millisecond before the epoch", -1],
    ["a time of day with every field", Date.UTC(2026, 10, 22, 21, 6, 47, 713)],
    ["milliseconds of one digit", Date.UTC(2026, 10, 22, 21, 6, 47, 9)],
    ["milliseconds of two digits", Date.UTC(2026, 10, 22, 21, 6, 47, 99)],
    ["the last millisecond of a day", Date.UTC(2026, 11, 31, 23, 59, 59, 999)],
    ["a leap day", Date.UTC(2024, 1, 29, 12)],
    ["a leap day of a year divisible by 400", Date.UTC(2000, 1, 29)],
    ["the day after February of a century year", Date.UTC(1900, 2, 1)],
    ["the last day of February", Date.UTC(2026, 1, 28, 23, 59, 59, 999)],
    ["the first of March", Date.UTC(2026, 2, 1)],
    ["a date before 1970", Date.UTC(1883, 10, 18, 19, 52, 58)],
    ["the first four-digit year", Date.UTC(1000, 0, 1)],
    ["the last four-digit millisecond", Date.UTC(10000, 0, 1) - 1],
    ["a year before 1000, left to toISOString", Date.UTC(999, 11, 31, 23, 59, 59, 999)],
    ["a five-digit year, left to toISOString", Date.UTC(10000, 0, 1)],
    ["a year before the common era, left to toISOString", Date.UTC(-44, 2, 15)],
  ];
  it.each(written)("writes %s as toISOString does", (_name, time) => {
    const date = new Date(time);
    expect(isoString(date)).toBe(date.toISOString());
  });

  it("throws toISOString's RangeError for an invalid date", () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });

  it("agrees with toISOString on any time from year 1 to 9999 and beyond", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(12000, 0, 1) }), (time) => {
        const date = new Date(time);
        expect(isoString(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });
});
