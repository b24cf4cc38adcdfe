import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { authorizeModpack, readableBy } from "../src/db/modpacks.js";
import { insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

type CallerKind = "anonymous" | "stranger" | "memberWith" | "memberWithout" | "owner" | "admin";
const callerKinds: CallerKind[] = ["anonymous", "stranger", "memberWith", "memberWithout", "owner", "admin"];

const UNAUTHORIZED = { message: "Unauthorized" };
const NO_PERMISSION = { message: "Do not have permission" };
const ACCESS_DENIED = { error: { message: "Access denied", code: "FORBIDDEN" } };
const MODPACK_NOT_FOUND = { error: { message: "Modpack not found", code: "NOT_FOUND" } };

let service: TestService;
let users: Record<Exclude<CallerKind, "anonymous">, SignedIn>;
let outsider: SignedIn;
let modId: string;

beforeAll(async () => {
  service = await startTestService();
  users = {
    stranger: await signIn(service, { name: "Stranger" }),
    memberWith: await signIn(service, { name: "Member with permissions" }),
    memberWithout: await signIn(service, { name: "Reader" }),
    owner: await signIn(service, { name: "Owner" }),
    admin: await signIn(service, { name: "Admin", role: "admin" }),
  };
  outsider = await signIn(service, { name: "Outsider" });
  modId = (
    await insertMod(service, { workshopId: "2200148440", name: "Brita's Weapon Pack", platformModIds: ["Brita"] })
  ).id;
});
afterAll(() => service.stop());

function headersOf(kind: CallerKind): Record<string, string> {
  return kind === "anonymous" ? {} : users[kind].headers;
}

/** A private modpack of `owner` with `memberWith` (every permission) and `memberWithout` (read only). */
function seedModpack(options: { isPublic?: boolean; withModLink?: boolean } = {}): Promise<string> {
  return insertModpack(service, {
    name: "Matrix pack",
    ownerId: users.owner.userId,
    isPublic: options.isPublic ?? false,
    modIds: options.withModLink ? [modId] : [],
    members: [
      { userId: users.memberWith.userId, permission: ["read", "add-mod", "remove-mod", "import", "configure"] },
      { userId: users.memberWithout.userId, permission: ["read"] },
    ],
  });
}

interface Row {
  name: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: (id: string) => string;
  body?: () => unknown;
  seed?: { isPublic?: boolean; withModLink?: boolean };
  success: number;
  /** Who gets the success status; everyone else signed in gets 403 Access denied. */
  allowed: CallerKind[];
}

const everyoneWhoReads: CallerKind[] = ["memberWith", "memberWithout", "owner"];

const rows: Row[] = [
  {
    name: "read a private modpack",
    method: "GET",
    path: (id) => `/modpacks/${id}`,
    success: 200,
    allowed: everyoneWhoReads,
  },
  {
    name: "update",
    method: "PATCH",
    path: (id) => `/modpacks/${id}`,
    body: () => ({ name: "Renamed pack" }),
    success: 200,
    allowed: ["owner"],
  },
  { name: "archive", method: "DELETE", path: (id) => `/modpacks/${id}`, success: 200, allowed: ["owner"] },
  { name: "restore", method: "POST", path: (id) => `/modpacks/${id}/restore`, success: 200, allowed: ["owner"] },
  {
    name: "duplicate",
    method: "POST",
    path: (id) => `/modpacks/${id}/duplicate`,
    success: 201,
    allowed: everyoneWhoReads,
  },
  {
    name: "list members",
    method: "GET",
    path: (id) => `/modpacks/${id}/members`,
    success: 200,
    allowed: everyoneWhoReads,
  },
  {
    name: "add a member",
    method: "POST",
    path: (id) => `/modpacks/${id}/members`,
    body: () => ({ userId: outsider.userId, permission: ["read"] }),
    success: 201,
    allowed: ["owner"],
  },
  {
    name: "change a member's permissions",
    method: "PATCH",
    path: (id) => `/modpacks/${id}/members/${users.memberWithout.userId}`,
    body: () => ({ permission: ["read", "add-mod"] }),
    success: 200,
    allowed: ["owner"],
  },
  {
    name: "remove a member",
    method: "DELETE",
    path: (id) => `/modpacks/${id}/members/${users.memberWithout.userId}`,
    success: 200,
    allowed: ["owner"],
  },
  { name: "list mods", method: "GET", path: (id) => `/modpacks/${id}/mods`, success: 200, allowed: everyoneWhoReads },
  {
    name: "add a mod",
    method: "POST",
    path: (id) => `/modpacks/${id}/mods`,
    body: () => ({ modAtribute: "Brita" }),
    success: 201,
    allowed: ["memberWith", "owner"],
  },
  {
    name: "remove a mod",
    method: "DELETE",
    path: (id) => `/modpacks/${id}/mods/${modId}`,
    seed: { withModLink: true },
    success: 200,
    allowed: ["memberWith", "owner"],
  },
];

describe.each(rows)("$name ($method)", (row) => {
  it.each(callerKinds)("as %s", async (kind) => {
    const id = await seedModpack(row.seed);
    const response = await service.app.inject({
      method: row.method,
      url: row.path(id),
      headers: headersOf(kind),
      ...(row.body ? { payload: row.body() as object } : {}),
    });
    if (kind === "anonymous") {
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe(JSON.stringify(UNAUTHORIZED));
    } else if (row.allowed.includes(kind)) {
      expect(response.statusCode, response.body).toBe(row.success);
    } else {
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual(ACCESS_DENIED);
    }
  });

  it("answers 404 for a modpack that does not exist, before the resource rule", async () => {
    for (const kind of ["stranger", "owner"] as const) {
      const response = await service.app.inject({
        method: row.method,
        url: row.path("01a1fe07-0000-7000-8000-000000000000"),
        headers: headersOf(kind),
        ...(row.body ? { payload: row.body() as object } : {}),
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(MODPACK_NOT_FOUND);
    }
  });
});

describe("public and archived modpacks", () => {
  let publicId: string;
  beforeEach(async () => {
    publicId = await seedModpack({ isPublic: true });
  });

  it("lets any signed-in caller read a public modpack, and anyone through the public read", async () => {
    for (const kind of ["stranger", "admin", "owner"] as const) {
      const response = await service.app.inject({
        method: "GET",
        url: `/modpacks/${publicId}`,
        headers: headersOf(kind),
      });
      expect(response.statusCode).toBe(200);
    }
    const anonymous = await service.app.inject({ method: "GET", url: `/modpacks/public/${publicId}` });
    expect(anonymous.statusCode).toBe(200);
    expect(
      anonymous
        .json()
        .members.map((member: { userId: string }) => member.userId)
        .sort(),
    ).toEqual([users.memberWith.userId, users.memberWithout.userId].sort());
  });

  it("hides a private modpack from the public read, even from its owner", async () => {
    const privateId = await seedModpack();
    for (const kind of ["anonymous", "owner"] as const) {
      const response = await service.app.inject({
        method: "GET",
        url: `/modpacks/public/${privateId}`,
        headers: headersOf(kind),
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(MODPACK_NOT_FOUND);
    }
  });

  it("treats an archived modpack as not found for everyone but its owner, who can restore it", async () => {
    const archive = await service.app.inject({
      method: "DELETE",
      url: `/modpacks/${publicId}`,
      headers: users.owner.headers,
    });
    expect(archive.json()).toEqual({ message: "Modpack archived" });
    for (const kind of ["stranger", "memberWith", "memberWithout", "admin"] as const) {
      const response = await service.app.inject({
        method: "GET",
        url: `/modpacks/${publicId}`,
        headers: headersOf(kind),
      });
      expect(response.statusCode).toBe(404);
    }
    const publicRead = await service.app.inject({ method: "GET", url: `/modpacks/public/${publicId}` });
    expect(publicRead.statusCode).toBe(404);
    const ownerRead = await service.app.inject({
      method: "GET",
      url: `/modpacks/${publicId}`,
      headers: users.owner.headers,
    });
    expect(ownerRead.statusCode).toBe(200);
    expect(ownerRead.json().isActive).toBe(false);
    const restored = await service.app.inject({
      method: "POST",
      url: `/modpacks/${publicId}/restore`,
      headers: users.owner.headers,
    });
    expect(restored.statusCode).toBe(200);
    expect(restored.json().isActive).toBe(true);
    const again = await service.app.inject({
      method: "GET",
      url: `/modpacks/${publicId}`,
      headers: users.stranger.headers,
    });
    expect(again.statusCode).toBe(200);
  });
});

describe("order of checks", () => {
  it("answers the resource rule (403) before body validation (400), and 400 to the owner", async () => {
    const id = await seedModpack();
    const bad = { name: "x" };
    const stranger = await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${id}`,
      headers: users.stranger.headers,
      payload: bad,
    });
    expect(stranger.statusCode).toBe(403);
    const owner = await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${id}`,
      headers: users.owner.headers,
      payload: bad,
    });
    expect(owner.statusCode).toBe(400);
    expect(owner.json().error.issues).toEqual([{ path: "name", message: "Must be 3-50 characters" }]);
  });

  it("answers 401 before anything else, even for a bad id and a bad body", async () => {
    const response = await service.app.inject({ method: "PATCH", url: "/modpacks/not-a-uuid", payload: { name: 1 } });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('{"message":"Unauthorized"}');
  });

  it("answers 400 for an id that is not a UUID", async () => {
    const response = await service.app.inject({
      method: "GET",
      url: "/modpacks/not-a-uuid",
      headers: users.owner.headers,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.issues).toEqual([{ path: "id", message: "Must be a UUID" }]);
  });
});

describe("role permissions", () => {
  const adminRoutes: { method: "GET" | "PATCH"; url: () => string; body?: () => object }[] = [
    { method: "GET", url: () => "/admin/users" },
    { method: "GET", url: () => "/admin/stats" },
    { method: "PATCH", url: () => `/admin/users/${outsider.userId}`, body: () => ({ role: "user" }) },
  ];

  it.each(adminRoutes)("guards $method admin routes by role", async (route) => {
    const anonymous = await service.app.inject({
      method: route.method,
      url: route.url(),
      ...(route.body ? { payload: route.body() } : {}),
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).toBe(JSON.stringify(UNAUTHORIZED));
    const user = await service.app.inject({
      method: route.method,
      url: route.url(),
      headers: users.owner.headers,
      ...(route.body ? { payload: route.body() } : {}),
    });
    expect(user.statusCode).toBe(403);
    expect(user.body).toBe(JSON.stringify(NO_PERMISSION));
    const admin = await service.app.inject({
      method: route.method,
      url: route.url(),
      headers: users.admin.headers,
      ...(route.body ? { payload: route.body() } : {}),
    });
    expect(admin.statusCode).toBe(200);
  });

  it("applies a role change on the user's next request", async () => {
    const promoted = await signIn(service, { name: "Soon admin" });
    const before = await service.app.inject({ method: "GET", url: "/admin/stats", headers: promoted.headers });
    expect(before.statusCode).toBe(403);
    const change = await service.app.inject({
      method: "PATCH",
      url: `/admin/users/${promoted.userId}`,
      headers: users.admin.headers,
      payload: { role: "admin" },
    });
    expect(change.statusCode).toBe(200);
    expect(change.json().role).toBe("admin");
    const after = await service.app.inject({ method: "GET", url: "/admin/stats", headers: promoted.headers });
    expect(after.statusCode).toBe(200);
  });
});

describe("the read rule, for one modpack and for lists", () => {
  // `authorizeModpack` writes the rule in SQL for one modpack, `readableBy` as a condition the lists
  // share: each state of a modpack, for each caller, gets one answer from both.
  const states = [
    { name: "public", isPublic: true, isActive: true },
    { name: "private", isPublic: false, isActive: true },
    { name: "archived public", isPublic: true, isActive: false },
    { name: "archived private", isPublic: false, isActive: false },
  ];
  it.each(states)("$name", async (state) => {
    const db = service.runtime.database.db;
    const id = await seedModpack({ isPublic: state.isPublic });
    if (!state.isActive) await db.updateTable("modpacks").set({ isActive: false }).where("id", "=", id).execute();
    const otherPack = "01a1fe07-0000-7000-8000-000000000001";
    const callers = [
      ...callerKinds.map((kind) => ({ kind, caller: kind === "anonymous" ? null : { userId: users[kind].userId } })),
      // Tokens limited to modpacks: to this one, and to another one.
      ...(["owner", "memberWithout"] as const).flatMap((kind) => [
        { kind: `${kind}'s token for it`, caller: { userId: users[kind].userId, modpackIds: [id] } },
        { kind: `${kind}'s token for another`, caller: { userId: users[kind].userId, modpackIds: [otherPack] } },
      ]),
    ];
    for (const { kind, caller } of callers) {
      const readers = await db
        .selectFrom("modpacks")
        .select("id")
        .where("id", "=", id)
        .where(readableBy(caller, { includeArchived: true }))
        .execute();
      const publicReaders = await db
        .selectFrom("modpacks")
        .select("id")
        .where("id", "=", id)
        .where(readableBy(null))
        .execute();
      const verdict = (need: "read" | "public") =>
        authorizeModpack(db, caller, id, need).then(
          () => "allowed",
          () => "refused",
        );
      expect({ kind, read: await verdict("read"), public: await verdict("public") }).toEqual({
        kind,
        read: readers.length === 1 ? "allowed" : "refused",
        public: publicReaders.length === 1 ? "allowed" : "refused",
      });
    }
  });
});
