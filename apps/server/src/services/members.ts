import { conflict, type Member, notFound, type Services, unprocessable } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { loadMembers } from "./modpacks.js";
import { createNotifications } from "./notifications.js";

function describe(permission: string[]): string {
  return permission.join(", ");
}

async function loadMember(db: Db, modpackId: string, userId: string): Promise<Member> {
  const members = await loadMembers(db, modpackId);
  const member = members.find((item) => item.userId === userId);
  if (!member) throw notFound("Member not found");
  return member;
}

export function membersService(db: Db): Services["members"] {
  return {
    async list(modpack) {
      return { members: await loadMembers(db, modpack.id) };
    },

    async add(_caller, modpack, input) {
      let userQuery = db.selectFrom("users").select(["id", "name"]);
      userQuery = input.userId
        ? userQuery.where("id", "=", input.userId)
        : userQuery.where(sql<string>`lower(email)`, "=", (input.email ?? "").toLowerCase());
      const user = await userQuery.orderBy("createdAt").executeTakeFirst();
      if (!user) throw notFound("User not found");
      if (user.id === modpack.ownerId) throw unprocessable("The owner cannot be added as a member");
      await db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom("modpackMembers")
          .select("isActive")
          .where("modpackId", "=", modpack.id)
          .where("userId", "=", user.id)
          .forUpdate()
          .executeTakeFirst();
        if (existing?.isActive) throw conflict("The user is already a member of this modpack");
        await trx
          .insertInto("modpackMembers")
          .values({ modpackId: modpack.id, userId: user.id, permission: input.permission })
          .onConflict((oc) =>
            oc.columns(["modpackId", "userId"]).doUpdateSet({
              permission: input.permission,
              isActive: true,
              updatedAt: sql<Date>`now()`,
            }),
          )
          .execute();
        await createNotifications(trx, [
          {
            userId: user.id,
            title: "Added to a modpack",
            content: `You were added to "${modpack.name}" with: ${describe(input.permission)}.`,
            type: "info",
            metadata: { modpackId: modpack.id, permission: input.permission },
          },
        ]);
      });
      return loadMember(db, modpack.id, user.id);
    },

    async update(_caller, modpack, input) {
      await db.transaction().execute(async (trx) => {
        const updated = await trx
          .updateTable("modpackMembers")
          .set({ permission: input.permission, updatedAt: sql<Date>`now()` })
          .where("modpackId", "=", modpack.id)
          .where("userId", "=", input.userId)
          .where("isActive", "=", true)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw notFound("Member not found");
        await createNotifications(trx, [
          {
            userId: input.userId,
            title: "Your permissions changed",
            content: `Your permissions on "${modpack.name}" are now: ${describe(input.permission)}.`,
            type: "info",
            metadata: { modpackId: modpack.id, permission: input.permission },
          },
        ]);
      });
      return loadMember(db, modpack.id, input.userId);
    },

    async remove(_caller, modpack, userId) {
      await db.transaction().execute(async (trx) => {
        const removed = await trx
          .updateTable("modpackMembers")
          .set({ isActive: false, updatedAt: sql<Date>`now()` })
          .where("modpackId", "=", modpack.id)
          .where("userId", "=", userId)
          .where("isActive", "=", true)
          .executeTakeFirst();
        if (Number(removed.numUpdatedRows) === 0) throw notFound("Member not found");
        await createNotifications(trx, [
          {
            userId,
            title: "Removed from a modpack",
            content: `You no longer have access to "${modpack.name}".`,
            type: "warning",
            metadata: { modpackId: modpack.id },
          },
        ]);
      });
      return { message: "Member removed" };
    },
  };
}
