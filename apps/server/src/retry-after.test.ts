import { describe, expect, it } from "vitest";
import { retryAfterSeconds } from "./retry-after.js";

const now = Date.parse("2026-11-25T12:00:00Z");

describe("retryAfterSeconds", () => {
  it.each([
    ["120", 120],
    [" 7200 ", 7200],
    ["0", 0],
    ["1.5", 1.5],
    ["Wed, 25 Nov 2026 12:00:30 GMT", 30],
    ["Wed, 25 Nov 2026 11:00:00 GMT", 0],
    [undefined, null],
    [null, null],
    ["", null],
    ["soon", null],
    ["-5", null],
  ])("reads %j as %j", (header, seconds) => {
    expect(retryAfterSeconds(header, now)).toBe(seconds);
  });
});
