import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/** Name resolution for webhook targets: every address a host name resolves to. Injected, so tests never resolve a public name. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** The system resolver (what a connection would use), every address of both families. */
export const systemResolver: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * True for an address on the public internet: a global unicast address. Loopback, private,
 * link-local, carrier-grade NAT, multicast, reserved, unspecified, and IPv6 forms that carry or
 * translate to an IPv4 address (mapped, 6to4, Teredo, NAT64) are not; an IPv4-mapped IPv6 address
 * is judged as the IPv4 address it maps.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === "unicast";
}

/** The URL's host as an address, when it is an address literal (the URL parser has normalised `127.1` and `0x7f000001`). */
export function addressLiteral(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return ipaddr.isValid(host) ? host : null;
}

export interface TargetRules {
  /** Private and loopback targets, and http, are allowed (tests, LAN installs, development). */
  allowPrivate: boolean;
  resolve: ResolveHost;
}

/** Why a webhook URL may not be used as a target, or null when it may. */
export async function refuseTarget(raw: string, rules: TargetRules): Promise<string | null> {
  const url = new URL(raw);
  if (rules.allowPrivate) return null;
  if (url.protocol !== "https:") return "The webhook URL must use https";
  const literal = addressLiteral(url);
  if (literal) return isPublicAddress(literal) ? null : "The webhook URL points to a private or reserved address";
  // A name that fails to resolve is refused like one that resolves to nothing.
  const addresses = await rules.resolve(url.hostname).catch((): string[] => []);
  if (addresses.length === 0) return "The webhook URL's host name does not resolve";
  return addresses.every(isPublicAddress) ? null : "The webhook URL resolves to a private or reserved address";
}

const DISCORD_HOSTS = new Set(["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]);
const DISCORD_PATH = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([^/?#]+)/;

/** True for a Discord webhook URL (`https://discord.com/api/webhooks/{id}/{token}`). */
export function isDiscordWebhook(raw: string): boolean {
  const url = new URL(raw);
  return DISCORD_HOSTS.has(url.hostname) && DISCORD_PATH.test(url.pathname);
}

/** The URL as lists and logs show it: a Discord webhook's token (which alone lets anyone post) as `****`. */
export function maskUrl(raw: string): string {
  if (!isDiscordWebhook(raw)) return raw;
  const url = new URL(raw);
  url.pathname = url.pathname.replace(DISCORD_PATH, (_match, id: string) => `/api/webhooks/${id}/****`);
  url.search = "";
  return url.toString();
}
