import type { CookieSerializeOptions } from "@fastify/cookie";
import type { Config } from "../config.js";

export const SESSION_COOKIE = "svcauth.session_token";
export const SESSION_COOKIE_MAX_AGE_SECONDS = 300;

/** The site of an origin: its scheme and last two host labels (`app.example.com` → `https://example.com`). */
function siteOf(origin: string): string {
  const url = new URL(origin);
  const labels = url.hostname.split(".");
  const site = /^\d+$/.test(labels.at(-1) ?? "") ? url.hostname : labels.slice(-2).join(".");
  return `${url.protocol}//${site}`;
}

/**
 * The session cookie's attributes (decisions.md, "Sign-in"): HttpOnly, Path=/, Max-Age=300,
 * SameSite=Lax, or None with Secure when ORIGIN_ALLOWED lists another site; Secure in production.
 */
export function sessionCookieOptions(config: Config): CookieSerializeOptions {
  const ownSite = siteOf(config.publicUrl);
  const crossSite = config.originsAllowed.some((origin) => siteOf(origin) !== ownSite);
  return {
    httpOnly: true,
    path: "/",
    maxAge: SESSION_COOKIE_MAX_AGE_SECONDS,
    sameSite: crossSite ? "none" : "lax",
    secure: config.isProduction || crossSite,
  };
}
