import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** A new signing secret: `whsec_` and base64 of 32 random bytes, as Standard Webhooks libraries read it. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** Encrypts a secret for storage: AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` in base64. */
export function sealSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString("base64"))].join(".");
}

/** Decrypts what `sealSecret` stored; throws when the key is not the one it was sealed with. */
export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || !ciphertext) {
    throw new Error("Unreadable webhook secret");
  }
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]).toString("utf8");
}
