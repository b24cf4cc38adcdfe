/** Roles and the permissions each holds, as data: the one table every permission check reads. */
export const roles = ["user", "admin"] as const;
export type Role = (typeof roles)[number];

const userPermissions = [
  "modpack.create",
  "modpack.read",
  "modpack.update",
  "modpack.archive",
  "modpack.export",
  "modpack.add-mod",
  "modpack.remove-mod",
  "modpack.import",
  "modpack.manager-members",
  "mod.create",
  "mod.read",
  "mod.update",
  "mod.remove",
  "notification.read",
  "notification.update",
] as const;

const adminOnlyPermissions = ["mod.update-all", "admin.access"] as const;

export type Permission = (typeof userPermissions)[number] | (typeof adminOnlyPermissions)[number];

export const rolePermissions: Readonly<Record<Role, readonly Permission[]>> = {
  user: userPermissions,
  admin: [...userPermissions, ...adminOnlyPermissions],
};

export function roleHasPermission(role: Role, permission: Permission): boolean {
  return rolePermissions[role].includes(permission);
}

/** What a member of a modpack may be allowed to do; the owner may do all of it. */
export const memberPermissions = ["read", "add-mod", "remove-mod", "import", "configure"] as const;
export type MemberPermission = (typeof memberPermissions)[number];

/**
 * What an API token may do. `read`: every operation that changes nothing (reads, the current server
 * file and its patch, the notification stream); `write`: everything else (changes, the asynchronous
 * export, token management, `/admin`); `report`: start reports of a server
 * (`POST /modpacks/{id}/server-starts`) and nothing else that writes. Sessions hold all of them.
 */
export const tokenScopes = ["read", "write", "report"] as const;
export type TokenScope = (typeof tokenScopes)[number];
