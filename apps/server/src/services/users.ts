import type { User } from "@modpack/contract";
import type { UserRow } from "../db/schema.js";

export function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, email: row.email ?? "", role: row.role, image: row.image ?? "" };
}
