import type { User } from "@modpack/contract";
import type { UserRow } from "./schema.js";

/** A user row as the contract answers it. */
export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, email: row.email ?? "", role: row.role, image: row.image ?? "" };
}
