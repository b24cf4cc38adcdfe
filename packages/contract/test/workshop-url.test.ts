import { describe, expect, it } from "vitest";
import { parseWorkshopUrl, workshopIdOf, workshopUrlSchema } from "../src/schemas/workshop.js";

const accepted: [string, string][] = [
  ["https://steamcommunity.com/sharedfiles/filedetails/?id=2169435993", "2169435993"],
  ["http://steamcommunity.com/sharedfiles/filedetails/?id=2169435993", "2169435993"],
  ["https://www.steamcommunity.com/sharedfiles/filedetails/?id=2392709985", "2392709985"],
  ["https://steamcommunity.com/workshop/filedetails/?id=2392709985", "2392709985"],
  ["https://steamcommunity.com/sharedfiles/filedetails/?id=2875848298&searchtext=gun", "2875848298"],
  ["https://steamcommunity.com/sharedfiles/filedetails/?searchtext=&id=2875848298", "2875848298"],
  ["https://steamcommunity.com/sharedfiles/filedetails?id=2875848298", "2875848298"],
  ["  https://steamcommunity.com/sharedfiles/filedetails/?id=1510950729  ", "1510950729"],
  ["HTTPS://SteamCommunity.com/sharedfiles/filedetails/?id=1510950729", "1510950729"],
  ["https://steamcommunity.com:443/sharedfiles/filedetails/?id=1510950729", "1510950729"],
  ["https://steamcommunity.com/sharedfiles/filedetails/?id=1510950729#comments", "1510950729"],
];

const rejected: string[] = [
  "",
  "2169435993",
  "steamcommunity.com/sharedfiles/filedetails/?id=2169435993",
  "https:steamcommunity.com/sharedfiles/filedetails/?id=2169435993",
  "ftp://steamcommunity.com/sharedfiles/filedetails/?id=2169435993",
  "javascript:alert(1)//steamcommunity.com/sharedfiles/filedetails/?id=1",
  "https://steamcommunity.com.evil.com/sharedfiles/filedetails/?id=2169435993",
  "https://evilsteamcommunity.com/sharedfiles/filedetails/?id=2169435993",
  "https://steamcommunity.com@evil.com/sharedfiles/filedetails/?id=2169435993",
  "https://user:pass@steamcommunity.com/sharedfiles/filedetails/?id=2169435993",
  "https://evil.com\\@steamcommunity.com/sharedfiles/filedetails/?id=2169435993",
  "https://steamcommunity.com\\@evil.com/sharedfiles/filedetails/?id=2169435993",
  "https://steamcommunity.com./sharedfiles/filedetails/?id=2169435993",
  "https://steamcommunity.com:8443/sharedfiles/filedetails/?id=2169435993",
  "https://store.steampowered.com/sharedfiles/filedetails/?id=2169435993",
  "https://steamcommunity.com/sharedfiles/filedetails/",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=abc",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=123abc",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=-5",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=0123",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=1%2B2",
  "https://steamcommunity.com/sharedfiles/filedetails/?id=1&id=2",
  "https://steamcommunity.com/sharedfiles/filedetails/?ID=2169435993",
  "https://steamcommunity.com/sharedfiles/other/?id=2169435993",
  "https://steamcommunity.com/id/someone/?id=2169435993",
  "https://steamcommunity.com/sharedfiles/filedetails/x/?id=2169435993",
];

describe("parseWorkshopUrl", () => {
  it.each(accepted)("accepts %j", (input, workshopId) => {
    expect(parseWorkshopUrl(input)).toBe(workshopId);
    expect(workshopUrlSchema.safeParse(input).success).toBe(true);
  });

  it.each(rejected)("rejects %j", (input) => {
    expect(parseWorkshopUrl(input)).toBeNull();
    expect(workshopUrlSchema.safeParse(input).success).toBe(false);
  });
});

const references: [string, string | null][] = [
  ["https://steamcommunity.com/sharedfiles/filedetails/?id=2169435993", "2169435993"],
  ["2169435993", "2169435993"],
  [" 2169435993 ", "2169435993"],
  ["002169435993", "2169435993"],
  ["0", "0"],
  ["12345678901234567890", "12345678901234567890"],
  ["123456789012345678901", null],
  ["Brita", null],
  ["-5", null],
  ["https://steamcommunity.com/sharedfiles/filedetails/?id=0123", null],
  ["https://example.com/?id=2169435993", null],
];

describe("workshopIdOf", () => {
  it.each(references)("reads %j as %j", (input, workshopId) => {
    expect(workshopIdOf(input)).toBe(workshopId);
  });
});
