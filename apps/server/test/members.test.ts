import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./fixtures/oauth-provider.js";
import { createModpack } from "./support/modpacks.js";
import { browserSignIn } from "./support/oauth-flow.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

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
    withProvider = await startTestService({ role: "api", env: provider.env });
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
      expect(Object.keys(body).sort()).toEqual(["createdAt", "email", "permission", "status"]);
      expect(body).toEqual({ email: lowered, permission: ["read"], status: "invited", createdAt: expect.any(String) });
      answers.push({ ...body, createdAt: "", email: "" });
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
