import { hash, timingSafeEqual } from "node:crypto";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import type { TokenIssuer } from "../services/ports.js";

/** Prefix that marks an API token; session tokens carry none. */
export const API_TOKEN_PREFIX = "mcs_";

/** A new random secret: 32 bytes (256 bits) from the platform CSPRNG, base32-encoded. */
export function generateSecret(prefix = ""): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/**
 * What the database keeps of a secret: the SHA-256 of its UTF-8 bytes, hex-encoded. Every signed-in
 * request hashes its token to find its cached session, so this is Node's native one-shot hash: a
 * SHA-256 in JavaScript costs several times as much a call, a cost `pnpm bench`'s signed-in
 * comparison shows.
 */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** A new API token (prefixed, so a lookup knows it from a session token) and its hash. */
export const issueApiToken: TokenIssuer = () => {
  const token = generateSecret(API_TOKEN_PREFIX);
  return { token, tokenHash: hashSecret(token) };
};

/** Compares two secrets (strings or bytes) in time that depends on their lengths only, not on where they differ. */
export function sameSecret(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const left = typeof a === "string" ? Buffer.from(a) : a;
  const right = typeof b === "string" ? Buffer.from(b) : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
