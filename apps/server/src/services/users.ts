import { notFound, type Services } from "@modpack/contract";
import type { Db } from "../db/database.js";
import { toUser } from "../db/users.js";

/** The signed-in caller's session (or API token) and user. */
export function sessionService(db: Db): Services["session"] {
  return {
    async current(caller) {
      const user = await db.selectFrom("users").selectAll().where("id", "=", caller.userId).executeTakeFirst();
      if (!user) throw notFound("User not found");
      return {
        session: {
          id: caller.sessionId ?? caller.tokenId ?? "",
          userId: caller.userId,
          expiresAt: caller.expiresAt.toISOString(),
        },
        user: toUser(user),
      };
    },
  };
}
