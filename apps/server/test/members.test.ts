import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./fixtures/oauth-provider.js";
import { createModpack } from "./support/modpacks.js";
import { browserSignIn } from "./support/oauth-flow.js";
import { addMembers } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The invitation lifetime the service with an identity provider runs with (the default is 14). */
const EXPIRY_DAYS = 7;

let service: TestService;
let owner: SignedIn;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service, { name: "Owner" });
});
afterAll(() => service.stop());

async function notificationsOf(userId: string, title: string, target?: TestService): Promise<number> {
  const rows = await (target ?? service).runtime.database.db
    .selectFrom("notifications")
    .select("id")
    .where("userId", "=", userId)
    .where("title", "=", title)
    .execute();
  return rows.length;
}

describe("POST /modpacks/{id}/members under concurrency", () => {
  it.each([
    { concurrent: 30, previously: "never a member" },
    { concurrent: 30, previously: "removed" },
  ])(
    "$concurrent adds of one user ($previously): one 201, the rest 409, one notification",
    async ({ concurrent, previously }) => {
      const modpackId = await createModpack(service, owner, { name: `Race ${previously}` });
      const invitee = await signIn(service);
      if (previously === "removed") {
        const added = await service.app.inject({
          method: "POST",
          url: `/modpacks/${modpackId}/members`,
          headers: owner.headers,
          payload: { userId: invitee.userId, permission: ["read"] },
        });
        expect(added.statusCode).toBe(201);
        const removed = await service.app.inject({
          method: "DELETE",
          url: `/modpacks/${modpackId}/members/${invitee.userId}`,
          headers: owner.headers,
        });
        expect(removed.statusCode).toBe(200);
      }
      const before = await notificationsOf(invitee.userId, "Added to a modpack");
      const responses = await Promise.all(
        Array.from({ length: concurrent }, () =>
          service.app.inject({
            method: "POST",
            url: `/modpacks/${modpackId}/members`,
            headers: owner.headers,
            payload: { userId: invitee.userId, permission: ["read", "add-mod"] },
          }),
        ),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([201, ...Array(concurrent - 1).fill(409)]);
      for (const response of responses.filter((item) => item.statusCode === 409)) {
        expect(response.json()).toEqual({
          error: { message: "The user is already a member of this modpack", code: "CONFLICT" },
        });
      }
      expect((await notificationsOf(invitee.userId, "Added to a modpack")) - before).toBe(1);
    },
  );
});

describe("adding a member by email", () => {
  let provider: FakeProvider;
  let withProvider: TestService;
  let inviter: SignedIn;

  beforeAll(async () => {
    provider = await startFakeProvider();
    withProvider = await startTestService({
      role: "api",
      env: { ...provider.env, INVITATION_EXPIRY_DAYS: String(EXPIRY_DAYS) },
    });
    inviter = await signIn(withProvider, { name: "Inviter" });
  });
  afterAll(async () => {
    await withProvider?.stop();
    await provider?.close();
  });

  const invite = (modpackId: string, email: string, permission: string[] = ["read"]) =>
    withProvider.app.inject({
      method: "POST",
      url: `/modpacks/${modpackId}/members`,
      headers: inviter.headers,
      payload: { email, permission },
    });

  async function modpackOf(name: string): Promise<string> {
    const response = await withProvider.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: inviter.headers,
      payload: { name },
    });
    return response.json().id;
  }

  it("answers the same whether or not the email belongs to an account", async () => {
    const existing = await signIn(withProvider, { email: "Someone.Real@example.com" });
    const modpackId = await modpackOf("Oracle");
    const cases = [
      { email: "someone.real@example.com", lowered: "someone.real@example.com" },
      { email: "Someone.Real@Example.com", lowered: "someone.real@example.com" },
      { email: "nobody-here@example.com", lowered: "nobody-here@example.com" },
      { email: inviter.email, lowered: inviter.email.toLowerCase() },
    ];
    const answers = [];
    for (const { email, lowered } of cases) {
      const response = await invite(modpackId, email);
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(["createdAt", "email", "expiresAt", "permission", "status"]);
      expect(body).toEqual({
        email: lowered,
        permission: ["read"],
        status: "invited",
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      });
      // Made or renewed now, it expires the configured number of days later.
      const lifetime = Date.parse(body.expiresAt) - Date.parse(body.createdAt);
      expect(lifetime).toBeGreaterThanOrEqual(EXPIRY_DAYS * DAY_MS);
      expect(lifetime).toBeLessThan(EXPIRY_DAYS * DAY_MS + 60 * 60 * 1000);
      answers.push({ ...body, createdAt: "", expiresAt: "", email: "" });
    }
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    // Nobody became a member or was told anything yet.
    const members = await withProvider.app.inject({
      method: "GET",
      url: `/modpacks/${modpackId}/members`,
      headers: inviter.headers,
    });
    expect(members.json().members).toEqual([]);
    expect(await notificationsOf(existing.userId, "Added to a modpack", withProvider)).toBe(0);
  });

  const invitations = (modpackId: string, who: SignedIn = inviter) =>
    withProvider.app.inject({ method: "GET", url: `/modpacks/${modpackId}/invitations`, headers: who.headers });
  const withdraw = (modpackId: string, email: string, who: SignedIn = inviter) =>
    withProvider.app.inject({
      method: "DELETE",
      url: `/modpacks/${modpackId}/invitations?email=${encodeURIComponent(email)}`,
      headers: who.headers,
    });
  const signInAs = async (email: string) => {
    provider.profile = { sub: `sub-${email}`, name: "Invitee", email, email_verified: true };
    expect((await browserSignIn(withProvider)).callback.statusCode).toBe(302);
  };
  const membersOf = async (modpackId: string) =>
    (
      await withProvider.runtime.database.db
        .selectFrom("modpackMembers")
        .innerJoin("users", "users.id", "modpackMembers.userId")
        .select("users.email")
        .where("modpackId", "=", modpackId)
        .execute()
    ).map((row) => row.email);

  it("lists pending invitations to the owner only, and withdraws one so that it is never claimed", async () => {
    const modpackId = await modpackOf("Pending");
    const member = await signIn(withProvider, { name: "Member" });
    const stranger = await signIn(withProvider, { name: "Stranger" });
    await addMembers(withProvider, modpackId, [{ userId: member.userId, permission: ["read"] }]);
    const first = `first-${Date.now()}@example.com`;
    const second = `second-${Date.now()}@example.com`;
    expect((await invite(modpackId, first)).statusCode).toBe(201);
    expect((await invite(modpackId, second, ["read", "import"])).statusCode).toBe(201);

    const listed = await invitations(modpackId);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().invitations).toEqual([
      expect.objectContaining({ email: second, permission: ["read", "import"], status: "invited" }),
      expect.objectContaining({ email: first, permission: ["read"], status: "invited" }),
    ]);
    // The addresses are the owner's: a member and a stranger are refused.
    expect((await invitations(modpackId, member)).statusCode).toBe(403);
    expect((await invitations(modpackId, stranger)).statusCode).toBe(403);
    expect((await withdraw(modpackId, first, member)).statusCode).toBe(403);

    const withdrawn = await withdraw(modpackId, first.toUpperCase());
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json()).toEqual({ message: "Invitation withdrawn" });
    expect((await withdraw(modpackId, first)).statusCode).toBe(404);
    expect((await withdraw(modpackId, "not-an-email")).statusCode).toBe(400);
    expect((await invitations(modpackId)).json().invitations.map((item: { email: string }) => item.email)).toEqual([
      second,
    ]);

    await signInAs(first);
    await signInAs(second);
    expect((await membersOf(modpackId)).sort()).toEqual([member.email, second].sort());
    // A claimed invitation is no longer pending.
    expect((await invitations(modpackId)).json().invitations).toEqual([]);
  });

  it("neither lists, withdraws nor claims an expired invitation", async () => {
    const modpackId = await modpackOf("Expired");
    const email = `expired-${Date.now()}@example.com`;
    expect((await invite(modpackId, email)).statusCode).toBe(201);
    await withProvider.runtime.database.db
      .updateTable("modpackInvitations")
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where("modpackId", "=", modpackId)
      .execute();
    expect((await invitations(modpackId)).json().invitations).toEqual([]);
    expect((await withdraw(modpackId, email)).statusCode).toBe(404);
    await signInAs(email);
    expect(await membersOf(modpackId)).toEqual([]);
    // Inviting again makes a fresh, claimable invitation.
    expect((await invite(modpackId, email)).statusCode).toBe(201);
    expect((await invitations(modpackId)).json().invitations).toHaveLength(1);
  });

  it.each([
    { name: "a new account", verified: true, becomesMember: true },
    { name: "an unverified email", verified: false, becomesMember: false },
  ])("turns the invitation into a membership at sign-in with $name", async ({ verified, becomesMember }) => {
    const email = `invited-${verified}-${Date.now()}@example.com`;
    const modpackId = await modpackOf(`Invitation ${verified}`);
    const archivedId = await modpackOf(`Archived ${verified}`);
    expect((await invite(modpackId, email.toUpperCase(), ["read", "add-mod"])).statusCode).toBe(201);
    expect((await invite(archivedId, email)).statusCode).toBe(201);
    const archived = await withProvider.app.inject({
      method: "DELETE",
      url: `/modpacks/${archivedId}`,
      headers: inviter.headers,
    });
    expect(archived.statusCode).toBe(200);
    provider.profile = { sub: `sub-${email}`, name: "Invitee", email, email_verified: verified };
    const flow = await browserSignIn(withProvider);
    expect(flow.callback.statusCode).toBe(302);
    const user = await withProvider.runtime.database.db
      .selectFrom("users")
      .select("id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    const members = await withProvider.app.inject({
      method: "GET",
      url: `/modpacks/${modpackId}/members`,
      headers: inviter.headers,
    });
    const listed = members
      .json()
      .members.map((member: { userId: string; permission: string[] }) => [member.userId, member.permission]);
    expect(listed).toEqual(becomesMember ? [[user.id, ["read", "add-mod"]]] : []);
    expect(await notificationsOf(user.id, "Added to a modpack", withProvider)).toBe(becomesMember ? 1 : 0);
    const archivedMembers = await withProvider.runtime.database.db
      .selectFrom("modpackMembers")
      .select("userId")
      .where("modpackId", "=", archivedId)
      .execute();
    expect(archivedMembers).toEqual([]);
  });
});

describe("GET /modpacks/{id}/members/{userId}", () => {
  let packId: string;
  let member: SignedIn;
  let removed: SignedIn;
  let stranger: SignedIn;

  beforeAll(async () => {
    packId = await createModpack(service, owner, { name: "One member", isPublic: false });
    member = await signIn(service, { name: "Read member" });
    removed = await signIn(service, { name: "Removed member" });
    stranger = await signIn(service, { name: "Stranger" });
    for (const [user, permission] of [
      [member, ["read", "add-mod"]],
      [removed, ["read"]],
    ] as const) {
      const added = await service.app.inject({
        method: "POST",
        url: `/modpacks/${packId}/members`,
        headers: owner.headers,
        payload: { userId: user.userId, permission },
      });
      expect(added.statusCode).toBe(201);
    }
    const gone = await service.app.inject({
      method: "DELETE",
      url: `/modpacks/${packId}/members/${removed.userId}`,
      headers: owner.headers,
    });
    expect(gone.statusCode).toBe(200);
  });

  it("answers the member as the list shows them, to the owner and to the member", async () => {
    const list = await service.app.inject({
      method: "GET",
      url: `/modpacks/${packId}/members`,
      headers: owner.headers,
    });
    const listed = list.json().members.find((item: { userId: string }) => item.userId === member.userId);
    for (const who of [owner, member]) {
      const one = await service.app.inject({
        method: "GET",
        url: `/modpacks/${packId}/members/${member.userId}`,
        headers: who.headers,
      });
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(listed);
      expect(one.json()).toMatchObject({ name: "Read member", permission: ["read", "add-mod"], isActive: true });
    }
  });

  it.each([
    { name: "a removed member", who: () => owner, userId: () => removed.userId, status: 404 },
    { name: "a user who never was one", who: () => owner, userId: () => stranger.userId, status: 404 },
    { name: "the owner (not a member)", who: () => owner, userId: () => owner.userId, status: 404 },
    { name: "a stranger asking", who: () => stranger, userId: () => member.userId, status: 403 },
    { name: "an anonymous caller", who: () => null, userId: () => member.userId, status: 401 },
    { name: "a user id that is not a UUID", who: () => owner, userId: () => "not-a-uuid", status: 400 },
  ])("answers $status for $name", async ({ who, userId, status }) => {
    const caller = who();
    const response = await service.app.inject({
      method: "GET",
      url: `/modpacks/${packId}/members/${userId()}`,
      headers: caller ? caller.headers : {},
    });
    expect(response.statusCode).toBe(status);
    if (status === 404) expect(response.json()).toEqual({ error: { message: "Member not found", code: "NOT_FOUND" } });
  });

  it("answers the same on /trpc", async () => {
    const response = await service.app.inject({
      method: "GET",
      url: `/trpc/members.get?input=${encodeURIComponent(JSON.stringify({ id: packId, userId: member.userId }))}`,
      headers: member.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().result.data).toMatchObject({ userId: member.userId, permission: ["read", "add-mod"] });
  });
});
