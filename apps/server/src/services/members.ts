import { conflict, type Invitation, type Member, notFound, type Services, unprocessable } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { loadMembers } from "../db/modpacks.js";
import { type NewNotification, notify } from "../db/notifications.js";

async function loadMember(db: Db, modpackId: string, userId: string): Promise<Member> {
  const members = await loadMembers(db, modpackId);
  const member = members.find((item) => item.userId === userId);
  if (!member) throw notFound("Member not found");
  return member;
}

/**
 * Makes a user an active member and notifies them, in the caller's transaction; false when they
 * already are one. One statement decides: a concurrent add of the same user waits on the row and
 * then finds it active, so exactly one adds (and notifies).
 */
async function addMembership(
  trx: Db,
  modpack: { id: string; name: string },
  userId: string,
  permission: string[],
): Promise<boolean> {
  const added = await trx
    .insertInto("modpackMembers")
    .values({ modpackId: modpack.id, userId, permission })
    .onConflict((oc) =>
      oc
        .columns(["modpackId", "userId"])
        .doUpdateSet({ permission, isActive: true, updatedAt: sql<Date>`now()` })
        .where("modpackMembers.isActive", "=", false),
    )
    .returning("userId")
    .executeTakeFirst();
  if (!added) return false;
  await notify(trx, {
    userId,
    title: "Added to a modpack",
    content: `You were added to "${modpack.name}" with: ${permission.join(", ")}.`,
    type: "info",
    metadata: { modpackId: modpack.id, permission },
  });
  return true;
}

/**
 * Changes an active membership (`set`) and tells the member (the rest), in one transaction; 404
 * when the user is not an active member.
 */
async function changeMember(
  db: Db,
  modpackId: string,
  userId: string,
  { set, ...notification }: Omit<NewNotification, "userId"> & { set: { permission: string[] } | { isActive: false } },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable("modpackMembers")
      .set({ ...set, updatedAt: sql<Date>`now()` })
      .where("modpackId", "=", modpackId)
      .where("userId", "=", userId)
      .where("isActive", "=", true)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) === 0) throw notFound("Member not found");
    await notify(trx, { userId, ...notification });
  });
}

const invitationColumns = ["email", "permission", "createdAt", "expiresAt"] as const;

/** An invitation row, read with `invitationColumns`, as the contract answers it. */
function invitationOf(row: { email: string; permission: string[]; createdAt: Date; expiresAt: Date }): Invitation {
  return { ...row, status: "invited", createdAt: row.createdAt.toISOString(), expiresAt: row.expiresAt.toISOString() };
}

/**
 * At sign-in with a verified email: the unexpired invitations to that email become memberships
 * (not for the owner, nor on an archived modpack). Every invitation to the email is consumed,
 * expired ones too. Returns how many were accepted.
 */
export async function acceptInvitations(db: Db, userId: string, email: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const invitations = await trx
      .deleteFrom("modpackInvitations")
      .where("email", "=", email.toLowerCase())
      .returning(["modpackId", "permission", "expiresAt"])
      .execute();
    const now = Date.now();
    const live = invitations.filter((invitation) => invitation.expiresAt.getTime() > now);
    if (live.length === 0) return 0;
    const modpackIds = live.map((invitation) => invitation.modpackId);
    const modpacks = await trx
      .selectFrom("modpacks")
      .select(["id", "name", "ownerId"])
      .where("id", "in", modpackIds)
      .where("isActive", "=", true)
      .execute();
    let accepted = 0;
    for (const invitation of live) {
      const modpack = modpacks.find((item) => item.id === invitation.modpackId);
      if (!modpack || modpack.ownerId === userId) continue;
      if (await addMembership(trx, modpack, userId, invitation.permission)) accepted++;
    }
    return accepted;
  });
}

export function membersService(db: Db, options: { invitationExpiryDays: number }): Services["members"] {
  const expiry = sql<Date>`now() + make_interval(days => ${options.invitationExpiryDays})`;
  return {
    async list(modpack) {
      return { members: await loadMembers(db, modpack.id) };
    },

    get(modpack, { userId }) {
      return loadMember(db, modpack.id, userId);
    },

    async add(caller, modpack, input) {
      if (input.email !== undefined) {
        // The same answer whatever the email: no account is looked up here.
        const email = input.email.toLowerCase();
        const row = await db
          .insertInto("modpackInvitations")
          .values({
            modpackId: modpack.id,
            email,
            permission: input.permission,
            invitedBy: caller.userId,
            expiresAt: expiry,
          })
          .onConflict((oc) =>
            oc.columns(["modpackId", "email"]).doUpdateSet({
              permission: input.permission,
              invitedBy: caller.userId,
              updatedAt: sql<Date>`now()`,
              expiresAt: expiry,
            }),
          )
          .returning(invitationColumns)
          .executeTakeFirstOrThrow();
        return invitationOf(row);
      }
      if (input.userId === undefined) throw notFound("User not found");
      const user = await db
        .selectFrom("users")
        .select(["id", "name"])
        .where("id", "=", input.userId)
        .executeTakeFirst();
      if (!user) throw notFound("User not found");
      if (user.id === modpack.ownerId) throw unprocessable("The owner cannot be added as a member");
      await db.transaction().execute(async (trx) => {
        if (!(await addMembership(trx, modpack, user.id, input.permission))) {
          throw conflict("The user is already a member of this modpack");
        }
      });
      return loadMember(db, modpack.id, user.id);
    },

    async update(modpack, { userId, permission }) {
      await changeMember(db, modpack.id, userId, {
        set: { permission },
        title: "Your permissions changed",
        content: `Your permissions on "${modpack.name}" are now: ${permission.join(", ")}.`,
        type: "info",
        metadata: { modpackId: modpack.id, permission },
      });
      return loadMember(db, modpack.id, userId);
    },

    async remove(modpack, { userId }) {
      await changeMember(db, modpack.id, userId, {
        set: { isActive: false },
        title: "Removed from a modpack",
        content: `You no longer have access to "${modpack.name}".`,
        type: "warning",
        metadata: { modpackId: modpack.id },
      });
      return { message: "Member removed" };
    },

    async listInvitations(modpack) {
      const rows = await db
        .selectFrom("modpackInvitations")
        .select(invitationColumns)
        .where("modpackId", "=", modpack.id)
        .where("expiresAt", ">", sql<Date>`now()`)
        .orderBy("updatedAt", "desc")
        .orderBy("email")
        .execute();
      return { invitations: rows.map(invitationOf) };
    },

    async withdrawInvitation(modpack, { email }) {
      const withdrawn = await db
        .deleteFrom("modpackInvitations")
        .where("modpackId", "=", modpack.id)
        .where("email", "=", email.toLowerCase())
        .where("expiresAt", ">", sql<Date>`now()`)
        .executeTakeFirst();
      if (Number(withdrawn.numDeletedRows) === 0) throw notFound("Invitation not found");
      return { message: "Invitation withdrawn" };
    },
  };
}
