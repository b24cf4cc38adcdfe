import type { Role } from "@modpack/contract";
import { SESSION_COOKIE } from "../../src/auth/cookies.js";
import type { TestService } from "./service.js";

export interface SignedIn {
  userId: string;
  email: string;
  token: string;
  /** Headers that authenticate a request with the session cookie. */
  headers: { cookie: string };
}

let counter = 0;

/** Creates a user (optionally an admin) and a real session for it through the session store. */
export async function signIn(
  service: TestService,
  options: { name?: string; email?: string; role?: Role } = {},
): Promise<SignedIn> {
  counter += 1;
  const email = options.email ?? `user${counter}-${Date.now()}@example.com`;
  const { db } = service.runtime.database;
  const user = await db
    .insertInto("users")
    .values({ name: options.name ?? `User ${counter}`, email, image: null, role: options.role ?? "user" })
    .returning("id")
    .executeTakeFirstOrThrow();
  const session = await service.runtime.sessions.createSession(user.id);
  return { userId: user.id, email, token: session.token, headers: { cookie: `${SESSION_COOKIE}=${session.token}` } };
}
