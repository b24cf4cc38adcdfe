/**
 * Each request's admission (the caller, the role's permission, the token's scope) is decided once:
 * by its REST route, by a plain route's handler, or, for a `/trpc` call, by the procedure's
 * middleware; nothing further down decides it again. `admit` does no I/O, so it is counted here
 * where the statement counts of `http-caching.test.ts` cannot see it. Refusals are decided once too.
 */
import type { admit as Admit } from "@modpack/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createModpack } from "./support/modpacks.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const counted = vi.hoisted(() => ({ admit: 0 }));

vi.mock("../../../packages/contract/src/admission.ts", async (importOriginal) => {
  const original = await importOriginal<{ admit: typeof Admit }>();
  const admit = ((...args: Parameters<typeof Admit>) => {
    counted.admit += 1;
    return original.admit(...args);
  }) as typeof Admit;
  return { ...original, admit };
});

let service: TestService;
let owner: SignedIn;
let stranger: SignedIn;
let pack: string;
let privatePack: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signIn(service, { name: "Owner" });
  stranger = await signIn(service, { name: "Stranger" });
  pack = await createModpack(service, owner, { name: "Decided once", isPublic: true });
  privatePack = await createModpack(service, owner, { name: "Decided once, private" });
});
afterAll(() => service.stop());
beforeEach(() => {
  counted.admit = 0;
});

const trpcInput = (input: unknown) => encodeURIComponent(JSON.stringify(input));

describe("admission is decided once per request", () => {
  const cases: {
    name: string;
    method: "GET" | "POST" | "PATCH";
    url: () => string;
    who?: () => SignedIn;
    headers?: Record<string, string>;
    payload?: object;
    status: number;
  }[] = [
    { name: "a REST read of a modpack", method: "GET", url: () => `/modpacks/${pack}`, who: () => owner, status: 200 },
    {
      name: "a REST read revalidated with a stale ETag",
      method: "GET",
      url: () => `/modpacks/${pack}`,
      who: () => owner,
      headers: { "if-none-match": 'W/"p0.stale"' },
      status: 200,
    },
    { name: "an anonymous REST read", method: "GET", url: () => `/modpacks/public/${pack}`, status: 200 },
    { name: "a REST list", method: "GET", url: () => "/modpacks/public?limit=5", status: 200 },
    {
      name: "a REST change",
      method: "PATCH",
      url: () => `/modpacks/${pack}`,
      who: () => owner,
      payload: { description: "Changed once" },
      status: 200,
    },
    {
      name: "a REST read the modpack's rule refuses",
      method: "GET",
      url: () => `/modpacks/${privatePack}`,
      who: () => stranger,
      status: 403,
    },
    { name: "a REST read without the credentials it needs", method: "GET", url: () => "/modpacks/my", status: 401 },
    {
      name: "a plain route (the current server file)",
      method: "GET",
      url: () => `/modpacks/${pack}/server-file?version=42x`,
      status: 200,
    },
    {
      name: "a /trpc call of a modpack procedure",
      method: "GET",
      url: () => `/trpc/modpacks.get?input=${trpcInput({ id: pack })}`,
      who: () => owner,
      status: 200,
    },
    {
      name: "a /trpc call of a public procedure",
      method: "GET",
      url: () => `/trpc/modpacks.listPublic?input=${trpcInput({})}`,
      status: 200,
    },
  ];

  it.each(cases)("$name", async ({ method, url, who, headers, payload, status }) => {
    const response = await service.app.inject({
      method,
      url: url(),
      headers: { ...(who ? who().headers : {}), ...headers },
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode, response.body).toBe(status);
    expect(counted.admit).toBe(1);
  });
});
