import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ role: "api", env: { API_TOKENS_PER_USER: "5" } });
});
afterAll(() => service.stop());

const create = (user: SignedIn, name: string) =>
  service.app.inject({ method: "POST", url: "/auth/tokens", headers: user.headers, payload: { name } });

describe("GET /auth/tokens", () => {
  it.each([
    { query: "", page: 1, limit: 20, names: ["t4", "t3", "t2", "t1", "t0"] },
    { query: "?limit=2", page: 1, limit: 2, names: ["t4", "t3"] },
    { query: "?limit=2&page=2", page: 2, limit: 2, names: ["t2", "t1"] },
    { query: "?limit=2&page=3", page: 3, limit: 2, names: ["t0"] },
    { query: "?limit=2&page=9", page: 9, limit: 2, names: [] },
  ])("pages the caller's tokens newest first: $query", async ({ query, page, limit, names }) => {
    const user = await signIn(service);
    for (let index = 0; index < 5; index++) expect((await create(user, `t${index}`)).statusCode).toBe(201);
    const other = await signIn(service);
    expect((await create(other, "not mine")).statusCode).toBe(201);
    const response = await service.app.inject({ method: "GET", url: `/auth/tokens${query}`, headers: user.headers });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.data.map((token: { name: string }) => token.name)).toEqual(names);
    expect(body.pagination).toEqual({ page, limit, total: 5, totalPages: Math.ceil(5 / limit) });
  });

  it.each(["?limit=0", "?limit=101", "?page=0", "?limit=1.5", "?limit=%201", "?page=true"])(
    "refuses a malformed paging parameter: %s",
    async (query) => {
      const user = await signIn(service);
      const response = await service.app.inject({ method: "GET", url: `/auth/tokens${query}`, headers: user.headers });
      expect(response.statusCode).toBe(400);
    },
  );
});

describe("the bound on live API tokens", () => {
  it("answers 409 past the bound, and allows one more once a token is revoked", async () => {
    const user = await signIn(service);
    const created: string[] = [];
    for (let index = 0; index < 5; index++) {
      const response = await create(user, `t${index}`);
      expect(response.statusCode).toBe(201);
      created.push(response.json().id);
    }
    const refused = await create(user, "one too many");
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      error: {
        message: "You already hold 5 API tokens, the most allowed; revoke one before creating another",
        code: "CONFLICT",
      },
    });
    const revoked = await service.app.inject({
      method: "DELETE",
      url: `/auth/tokens/${created[0]}`,
      headers: user.headers,
    });
    expect(revoked.statusCode).toBe(204);
    expect((await create(user, "replacement")).statusCode).toBe(201);
  });

  it("holds under concurrent creation", async () => {
    const user = await signIn(service);
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => create(user, `c${index}`)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(7).fill(409)]);
    const listed = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: user.headers });
    expect(listed.json().pagination.total).toBe(5);
  });
});
