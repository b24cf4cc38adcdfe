/**
 * HTTP caching of reads: an ETag on modpack reads, public lists, mod reads and the catalogue's
 * tags; If-None-Match with it answers 304 with no body until the answer changes; Cache-Control
 * public for what every caller sees alike, private (and Vary) for what depends on the caller.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModpack } from "./support/modpacks.js";
import { insertMod, linkMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;
let packId: string;
let modId: string;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service);
  packId = await createModpack(service, owner, { name: "Cached pack", isPublic: true });
  modId = (
    await insertMod(service, { workshopId: "9100001", name: "Cached mod", description: "etag", tags: ["Cached"] })
  ).id;
  await linkMods(service, packId, owner.userId, [modId]);
});
afterAll(async () => {
  await service?.stop();
});

const get = (url: string, headers: Record<string, string> = {}) => service.app.inject({ method: "GET", url, headers });

/** A change that alters the answer of each read (catalogue writers always move `updated_at`). */
async function touchPack() {
  const response = await service.app.inject({
    method: "PATCH",
    url: `/modpacks/${packId}`,
    headers: owner.headers,
    payload: { description: `changed ${Date.now()}` },
  });
  expect(response.statusCode).toBe(200);
}
async function touchMod() {
  await service.runtime.database.db
    .updateTable("mods")
    .set({ name: `Cached mod ${Date.now()}`, tags: ["Cached", `T${Date.now()}`], updatedAt: new Date() })
    .where("id", "=", modId)
    .execute();
}

describe.each([
  { name: "a modpack", url: () => `/modpacks/${packId}`, signedIn: true, cache: "private, no-cache", touch: touchPack },
  {
    name: "the public list",
    url: () => "/modpacks/public?limit=5",
    signedIn: false,
    cache: "public, no-cache",
    touch: touchPack,
  },
  { name: "a mod", url: () => `/mods/${modId}`, signedIn: false, cache: "public, no-cache", touch: touchMod },
  {
    name: "the catalogue",
    url: () => "/mods?search=Cached",
    signedIn: false,
    cache: "public, no-cache",
    touch: touchMod,
  },
  { name: "the tags", url: () => "/mods/tags", signedIn: false, cache: "public, no-cache", touch: touchMod },
  {
    name: "a modpack's mods in the catalogue",
    url: () => `/mods?modpackId=${packId}`,
    signedIn: true,
    cache: "private, no-cache",
    touch: touchMod,
  },
])("$name", ({ url, signedIn, cache, touch }) => {
  it("answers an ETag, 304 with no body for it, and a new ETag once the answer changes", async () => {
    const headers = signedIn ? owner.headers : {};
    const first = await get(url(), headers);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers["cache-control"]).toBe(cache);
    if (cache.startsWith("private")) expect(first.headers.vary).toBe("Cookie, Authorization");

    const again = await get(url(), { ...headers, "if-none-match": etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(etag);

    await touch();
    const changed = await get(url(), { ...headers, "if-none-match": etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });
});

it("leaves errors and the caller's own lists without an ETag", async () => {
  const missing = await get("/mods/00000000-0000-7000-8000-000000000000");
  expect(missing.statusCode).toBe(404);
  expect(missing.headers.etag).toBeUndefined();
  const mine = await get("/modpacks/my", owner.headers);
  expect(mine.statusCode).toBe(200);
  expect(mine.headers.etag).toBeUndefined();
});

it.each([
  ["the session cookie", () => owner.headers],
  ["a Bearer token", () => ({ authorization: "Bearer mcs_not_a_real_token" })],
])("keeps a public read sent with %s out of shared caches", async (_label, headers) => {
  const response = await get("/modpacks/public?limit=5", headers());
  expect(response.statusCode).toBe(200);
  expect(response.headers["cache-control"]).toBe("private, no-cache");
  expect(response.headers.vary).toBe("Cookie, Authorization");
});
