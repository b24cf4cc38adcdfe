import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";

/** Prefix that marks an API token; session tokens carry none. */
export const API_TOKEN_PREFIX = "mcs_";

/** A new random secret: 32 bytes (256 bits) from the platform CSPRNG, base32-encoded. */
export function generateSecret(prefix = ""): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/** What the database keeps of a secret: its SHA-256, hex-encoded. */
export function hashSecret(secret: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(secret)));
}
