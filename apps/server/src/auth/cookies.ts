import type { CookieSerializeOptions } from "@fastify/cookie";
import { getDomain } from "tldts";
import type { Config } from "../config.js";

export { SESSION_COOKIE } from "../edge/routes.js";
export const SESSION_COOKIE_MAX_AGE_SECONDS = 300;

/**
 * The site of an origin: its scheme and registrable domain by the Public Suffix List, private
 * suffixes included (`app.example.co.uk` → `https://example.co.uk`; `alice.github.io` is its own
 * site). An IP address or a single-label host (`localhost`) is its own site.
 */
export function siteOf(origin: string): string {
  const url = new URL(origin);
  const site = getDomain(url.hostname, { allowPrivateDomains: true }) ?? url.hostname;
  return `${url.protocol}//${site}`;
}

/**
 * The session cookie's attributes: HttpOnly, Path=/, Max-Age=300,
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
