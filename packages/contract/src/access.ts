import type { MemberPermission, Role, TokenScope } from "./permissions.js";
import type { Member } from "./schemas/member.js";
import type { Modpack } from "./schemas/modpack.js";

/** Who is calling: resolved by the server from the session cookie or a Bearer token. */
export interface Caller {
  userId: string;
  role: Role;
  /** The session behind the call, when it came with a session token. */
  sessionId: string | null;
  /** The API token behind the call, when it came with one. */
  tokenId: string | null;
  /** When the session or token expires (sessions slide forward with each request). */
  expiresAt: Date;
  /** What an API token may do; absent: both scopes (a session, or a token made with both). */
  scopes?: readonly TokenScope[];
  /**
   * The modpacks an API token is limited to: any other modpack answers as it would to a stranger,
   * and the caller's own lists hold only these. Absent: no limit.
   */
  modpackIds?: readonly string[];
}

/**
 * Whether the caller's credentials allow `scope` (sessions and unscoped tokens allow all). A token
 * that may write may also report.
 */
export function callerHasScope(caller: Caller, scope: TokenScope): boolean {
  if (caller.scopes === undefined || caller.scopes.includes(scope)) return true;
  return scope === "report" && caller.scopes.includes("write");
}

/**
 * What a procedure needs of the modpack named by its `id`: `public` (public and active, else 404),
 * `read` (owner, member, or public), `owner`, a member permission (owner, or a member holding it),
 * `member` (owner or member, public or not), or `restore` (owner, or a member holding `add-mod`,
 * `remove-mod` and `configure`).
 */
export type ModpackNeed = "public" | "read" | "member" | "owner" | "restore" | Exclude<MemberPermission, "read">;

/** A modpack the caller was allowed to reach, as the service loaded it for the resource rule. */
export interface ModpackAccess {
  id: string;
  name: string;
  ownerId: string;
  isActive: boolean;
  /** The version of the modpack's row when it was checked, which its members, links and mods move too. */
  version: string;
  /** The modpack as the check read it, without its members. */
  modpack: Omit<Modpack, "members">;
  /** Its active members, oldest first, when the check was asked to read them. */
  members?: Member[];
}

/** Applies a modpack's resource rule; the server's modpacks service implements it. */
export interface ModpackGuard {
  /**
   * Loads a modpack and applies a resource rule: 404 when it is not there for the caller, 403 when
   * refused. With `members`, the same statement reads its active members.
   */
  authorize(
    caller: Caller | null,
    id: string,
    need: ModpackNeed,
    options?: { members?: boolean },
  ): Promise<ModpackAccess>;
}
