import type { Role } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ProviderProfile } from "./providers.js";

export interface SignedInUser {
  userId: string;
  /** The role before this sign-in changed it, when it did (cached credentials must then be dropped). */
  previousRole: Role | undefined;
}

/**
 * Finds or creates the user behind a provider account, in one transaction: the first sign-in
 * creates the `users` row and its `accounts` link; every sign-in refreshes name, email and image.
 * A verified email listed in ADMIN_EMAILS (case-insensitive) makes the user `admin`; otherwise
 * the stored role is kept (an admin is never demoted here).
 */
export async function upsertSignedInUser(
  db: Db,
  provider: string,
  profile: ProviderProfile,
  adminEmails: readonly string[],
): Promise<SignedInUser> {
  const listed = profile.email !== null && profile.emailVerified && adminEmails.includes(profile.email.toLowerCase());
  const fields = { name: profile.name, email: profile.email, image: profile.image };
  return db.transaction().execute(async (trx) => {
    // Serialises the sign-ins of one provider account, so that two first sign-ins never both create its user.
    await sql`select pg_advisory_xact_lock(hashtext(${provider}), hashtext(${profile.id}))`.execute(trx);
    const existing = await trx
      .selectFrom("accounts")
      .innerJoin("users", "users.id", "accounts.userId")
      .select(["users.id", "users.role"])
      .where("accounts.provider", "=", provider)
      .where("accounts.providerUserId", "=", profile.id)
      .forUpdate()
      .executeTakeFirst();
    if (existing) {
      await trx
        .updateTable("users")
        .set({ ...fields, ...(listed ? { role: "admin" as const } : {}), updatedAt: new Date() })
        .where("id", "=", existing.id)
        .execute();
      return {
        userId: existing.id,
        previousRole: listed && existing.role !== "admin" ? existing.role : undefined,
      };
    }
    const user = await trx
      .insertInto("users")
      .values({ ...fields, ...(listed ? { role: "admin" as const } : {}) })
      .returning("id")
      .executeTakeFirstOrThrow();
    await trx.insertInto("accounts").values({ provider, providerUserId: profile.id, userId: user.id }).execute();
    return { userId: user.id, previousRole: undefined };
  });
}
