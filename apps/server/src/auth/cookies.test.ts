import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { sessionCookieOptions, siteOf } from "./cookies.js";

describe("siteOf", () => {
  it.each([
    ["https://app.example.com", "https://example.com"],
    ["https://example.com", "https://example.com"],
    ["https://shop.example.co.uk", "https://example.co.uk"],
    ["https://example.co.uk", "https://example.co.uk"],
    ["https://alice.github.io", "https://alice.github.io"],
    ["https://docs.alice.github.io", "https://alice.github.io"],
    ["https://a.b.example.com.au", "https://example.com.au"],
    ["http://localhost:5173", "http://localhost"],
    ["http://127.0.0.1:3000", "http://127.0.0.1"],
    ["http://[::1]:3000", "http://[::1]"],
  ])("%s is on the site %s", (origin, site) => {
    expect(siteOf(origin)).toBe(site);
  });
});

describe("the session cookie's SameSite", () => {
  it.each([
    // Same site: Lax is enough.
    ["https://api.example.com", "https://app.example.com", "lax", false],
    ["https://api.example.co.uk", "https://www.example.co.uk", "lax", false],
    ["http://localhost:3000", "http://localhost:5173", "lax", false],
    // Another registrable domain under a public suffix: a different site, so None with Secure.
    ["https://api.example.co.uk", "https://other.co.uk", "none", true],
    ["https://alice.github.io", "https://bob.github.io", "none", true],
    ["https://api.example.com", "https://example.org", "none", true],
    ["http://127.0.0.1:3000", "http://localhost:5173", "none", true],
  ])("PUBLIC_URL %s with ORIGIN_ALLOWED %s → %s", (publicUrl, allowed, sameSite, secure) => {
    const options = sessionCookieOptions(loadConfig({ PUBLIC_URL: publicUrl, ORIGIN_ALLOWED: allowed }));
    expect(options).toMatchObject({ sameSite, secure, httpOnly: true, path: "/" });
  });
});
