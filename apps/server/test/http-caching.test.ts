/**
 * HTTP caching of reads: an ETag on modpack reads, public lists, mod reads and the catalogue's
 * tags; If-None-Match with it answers 304 with no body until the answer changes; Cache-Control
 * public for what every caller sees alike, private (and Vary) for what depends on the caller.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModpack } from "./support/modpacks.js";
import { statementsOf } from "./support/query-count.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;
let packId: string;
let modId: string;

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service);
  const pack = await service.app.inject({
    method: "POST",
    url: "/modpacks",
    headers: owner.headers,
    payload: { name: "Cached pack", isPublic: true },
  });
  packId = pack.json().id;
  const mod = await service.runtime.database.db
    .insertInto("mods")
    .values({ workshopId: "9100001", name: "Cached mod", description: "etag", tags: ["Cached"] })
    .returning("id")
    .executeTakeFirstOrThrow();
  modId = mod.id;
  await service.runtime.database.db
    .insertInto("modpackMods")
    .values({ modpackId: packId, modId, addedBy: owner.userId })
    .execute();
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

describe("a versioned read", () => {
  /** The workshop item the pack's mod requires and the pack lacks. */
  const REQUIRED = "9100003";
  let member: SignedIn;
  let otherModId: string;

  beforeAll(async () => {
    // The pack's mod requires an item the catalogue does not have yet.
    await service.runtime.database.db
      .updateTable("mods")
      .set({ requiredWorkshopIds: [REQUIRED] })
      .where("id", "=", modId)
      .execute();
    member = await signIn(service, { name: "Member before" });
    const other = await service.runtime.database.db
      .insertInto("mods")
      .values({ workshopId: "9100002", name: "Other cached mod", description: "etag", tags: ["Cached"] })
      .returning("id")
      .executeTakeFirstOrThrow();
    otherModId = other.id;
  });

  const reads = [
    { name: "a modpack", url: () => `/modpacks/${packId}`, headers: () => owner.headers },
    { name: "a public modpack", url: () => `/modpacks/public/${packId}`, headers: () => ({}) },
    { name: "a modpack's mods", url: () => `/modpacks/${packId}/mods?limit=5`, headers: () => owner.headers },
    { name: "a mod", url: () => `/mods/${modId}`, headers: () => ({}) },
    { name: "a modpack's check", url: () => `/modpacks/${packId}/check?version=42x`, headers: () => owner.headers },
    { name: "a modpack's start reports", url: () => `/modpacks/${packId}/server-starts`, headers: () => owner.headers },
    { name: "a modpack's history", url: () => `/modpacks/${packId}/revisions`, headers: () => owner.headers },
  ];

  it.each(reads)(
    "answers 304 for $name from its validator's lookup alone, before the read",
    async ({ url, headers }) => {
      const first = await get(url(), headers());
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag as string;
      // Warm the session cache, so only the validator's statement is left to count.
      await get(url(), headers());
      const { result, statements } = await statementsOf(service, () =>
        get(url(), { ...headers(), "if-none-match": etag }),
      );
      expect(result.statusCode).toBe(304);
      expect(result.body).toBe("");
      expect(result.headers.etag).toBe(etag);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/^select .* from "?(modpacks|mods)"?[\s]/s);
      expect(statements[0]).not.toMatch(/"users"|"modpack_mods"|"description"/);

      // Without a validator the read runs as before, with more statements than the validator's one.
      const full = await statementsOf(service, () => get(url(), headers()));
      expect(full.result.statusCode).toBe(200);
      expect(full.result.headers.etag).toBe(etag);
      expect(full.statements.length).toBeGreaterThan(0);
    },
  );

  it("answers a caller who may not read the modpack as the read does, not 304", async () => {
    await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${packId}`,
      headers: owner.headers,
      payload: { isPublic: false },
    });
    try {
      const first = await get(`/modpacks/${packId}`, owner.headers);
      const etag = first.headers.etag as string;
      const stranger = await signIn(service);
      const refused = await get(`/modpacks/${packId}`, { ...stranger.headers, "if-none-match": etag });
      expect(refused.statusCode).toBe(403);
      const anonymous = await get(`/modpacks/public/${packId}`, { "if-none-match": etag });
      expect(anonymous.statusCode).toBe(404);
    } finally {
      await service.app.inject({
        method: "PATCH",
        url: `/modpacks/${packId}`,
        headers: owner.headers,
        payload: { isPublic: true },
      });
    }
  });

  const db = () => service.runtime.database.db;
  const changes: { name: string; reads: string[]; change: () => Promise<unknown> }[] = [
    {
      name: "the modpack's own fields",
      reads: ["a modpack", "a public modpack", "a modpack's mods"],
      change: () => touchPack(),
    },
    {
      name: "a new member",
      reads: ["a modpack", "a public modpack"],
      change: () =>
        db()
          .insertInto("modpackMembers")
          .values({ modpackId: packId, userId: member.userId, permission: ["read"] })
          .execute(),
    },
    {
      name: "a member's permissions",
      reads: ["a modpack", "a public modpack"],
      change: () =>
        db()
          .updateTable("modpackMembers")
          .set({ permission: ["read", "add-mod"] })
          .where("modpackId", "=", packId)
          .where("userId", "=", member.userId)
          .execute(),
    },
    {
      name: "a member's name",
      reads: ["a modpack", "a public modpack"],
      change: () => db().updateTable("users").set({ name: "Member after" }).where("id", "=", member.userId).execute(),
    },
    {
      name: "a member's picture",
      reads: ["a modpack", "a public modpack"],
      change: () =>
        db().updateTable("users").set({ image: "https://example.com/a.png" }).where("id", "=", member.userId).execute(),
    },
    {
      name: "a member leaving",
      reads: ["a modpack", "a public modpack"],
      change: () =>
        db().deleteFrom("modpackMembers").where("modpackId", "=", packId).where("userId", "=", member.userId).execute(),
    },
    {
      name: "a mod added",
      reads: ["a modpack's mods", "a modpack's check"],
      change: () =>
        db()
          .insertInto("modpackMods")
          .values({ modpackId: packId, modId: otherModId, addedBy: owner.userId })
          .execute(),
    },
    {
      name: "a mod switched off",
      reads: ["a modpack's mods"],
      change: () =>
        db()
          .updateTable("modpackMods")
          .set({ isActive: false })
          .where("modpackId", "=", packId)
          .where("modId", "=", otherModId)
          .execute(),
    },
    {
      name: "a mod removed",
      reads: ["a modpack's mods", "a modpack's check"],
      change: () =>
        db().deleteFrom("modpackMods").where("modpackId", "=", packId).where("modId", "=", otherModId).execute(),
    },
    {
      name: "a catalogue refresh of one of its mods",
      reads: ["a modpack's mods", "a mod"],
      change: () =>
        db()
          .updateTable("mods")
          .set({ description: `refreshed ${Date.now()}` })
          .where("id", "=", modId)
          .execute(),
    },
    {
      name: "a mod's in-game ids",
      reads: ["a modpack's mods", "a mod"],
      change: () =>
        db()
          .updateTable("mods")
          .set({ modIdsB42: ["CachedB42"] })
          .where("id", "=", modId)
          .execute(),
    },
    {
      name: "a failed start report, which leaves the last good revision as it was",
      reads: ["a modpack's check", "a modpack's start reports"],
      change: async () => {
        const { revision } = await db()
          .selectFrom("modpacks")
          .select("revision")
          .where("id", "=", packId)
          .executeTakeFirstOrThrow();
        const failure = { code: "not-started", severity: "error", modId: null, workshopId: null, platformModId: null };
        await db()
          .insertInto("serverStarts")
          .values({
            modpackId: packId,
            revision,
            version: "42x",
            outcome: "failed",
            modsLoaded: [],
            findings: JSON.stringify([{ ...failure, line: 1, text: "The server stopped" }]),
          })
          .execute();
      },
    },
    {
      name: "the name of a revision's author who is not a member (its owner)",
      reads: ["a modpack's history"],
      change: async () => {
        // A revision the owner made: the load order saved.
        const saved = await service.app.inject({
          method: "PUT",
          url: `/modpacks/${packId}/export-configuration`,
          headers: owner.headers,
          payload: { modsOrder: [modId] },
        });
        expect(saved.statusCode, saved.body).toBe(200);
        const history = await get(`/modpacks/${packId}/revisions`, owner.headers);
        const etag = history.headers.etag as string;
        await db().updateTable("users").set({ name: "Owner renamed" }).where("id", "=", owner.userId).execute();
        const after = await get(`/modpacks/${packId}/revisions`, { ...owner.headers, "if-none-match": etag });
        expect(after.statusCode).toBe(200);
        expect(after.json().data[0].author).toMatchObject({ name: "Owner renamed" });
      },
    },
    {
      name: "a missing requirement entering the catalogue",
      reads: ["a modpack's check"],
      change: () =>
        db()
          .insertInto("mods")
          .values({ workshopId: REQUIRED, name: "Required before", description: "etag", tags: [] })
          .execute(),
    },
    {
      name: "a missing requirement's new name",
      reads: ["a modpack's check"],
      change: () =>
        db().updateTable("mods").set({ name: "Required after" }).where("workshopId", "=", REQUIRED).execute(),
    },
    {
      name: "a missing requirement leaving the catalogue",
      reads: ["a modpack's check"],
      change: () => db().deleteFrom("mods").where("workshopId", "=", REQUIRED).execute(),
    },
    {
      name: "a catalogue entry taking a missing requirement's workshop id",
      reads: ["a modpack's check"],
      change: async () => {
        // Entering under an id nobody requires moves nothing; taking the required id does.
        const stray = await db()
          .insertInto("mods")
          .values({ workshopId: "9100005", name: "Required elsewhere", description: "etag", tags: [] })
          .returning("id")
          .executeTakeFirstOrThrow();
        await db().updateTable("mods").set({ workshopId: REQUIRED }).where("id", "=", stray.id).execute();
      },
    },
  ];

  it.each(changes)("changes the ETag of every read that shows $name", async ({ reads: shown, change }) => {
    const before = new Map<string, string>();
    for (const read of reads) before.set(read.name, (await get(read.url(), read.headers())).headers.etag as string);
    await change();
    for (const read of reads) {
      const etag = before.get(read.name) as string;
      const after = await get(read.url(), { ...read.headers(), "if-none-match": etag });
      if (shown.includes(read.name)) {
        expect(after.statusCode, read.name).toBe(200);
        expect(after.headers.etag, read.name).not.toBe(etag);
      }
    }
  });

  it("answers the check anew, with the requirement's title as it is now, once the catalogue renames it", async () => {
    const url = `/modpacks/${packId}/check?version=42x`;
    await db()
      .insertInto("mods")
      .values({ workshopId: REQUIRED, name: "Required then", description: "etag", tags: [] })
      .onConflict((onConflict) => onConflict.column("workshopId").doUpdateSet({ name: "Required then" }))
      .execute();
    const first = await get(url, owner.headers);
    expect(first.headers["cache-control"]).toBe("private, no-cache");
    await db().updateTable("mods").set({ name: "Required now" }).where("workshopId", "=", REQUIRED).execute();
    const again = await get(url, { ...owner.headers, "if-none-match": first.headers.etag as string });
    expect(again.statusCode).toBe(200);
    const missing = (again.json().findings as { code: string; message: string }[]).filter(
      (finding) => finding.code === "missing-requirement",
    );
    expect(missing.map((finding) => finding.message)).toEqual([expect.stringContaining('("Required now")')]);
  });

  it("leaves a modpack's ETag and its check's alone when nothing they show changed", async () => {
    const first = await get(`/modpacks/${packId}`, owner.headers);
    const check = await get(`/modpacks/${packId}/check?version=42x`, owner.headers);
    const stranger = await signIn(service);
    const elsewhere = await createModpack(service, owner, { name: "Another cached pack" });
    await db().updateTable("users").set({ name: "Not a member" }).where("id", "=", stranger.userId).execute();
    // A mod nobody in the pack requires: renamed, described anew, and one entering the catalogue.
    await db()
      .updateTable("mods")
      .set({ name: "Unrelated now", description: "unrelated" })
      .where("id", "=", otherModId)
      .execute();
    await db()
      .insertInto("mods")
      .values({ workshopId: "9100004", name: "Nobody's requirement", description: "etag", tags: [] })
      .execute();
    await db()
      .insertInto("serverStarts")
      .values({ modpackId: elsewhere, revision: 0, version: "42x", outcome: "failed", modsLoaded: [], findings: "[]" })
      .execute();
    await db()
      .updateTable("modpacks")
      .set({ description: first.json().description })
      .where("id", "=", packId)
      .execute();
    const again = await get(`/modpacks/${packId}`, { ...owner.headers, "if-none-match": first.headers.etag as string });
    expect(again.statusCode).toBe(304);
    const checkAgain = await get(`/modpacks/${packId}/check?version=42x`, {
      ...owner.headers,
      "if-none-match": check.headers.etag as string,
    });
    expect(checkAgain.statusCode).toBe(304);
  });

  it("refuses a check's bad input with 400 before a 304 could answer for it", async () => {
    const refused = await get(`/modpacks/${packId}/check?version=40x`, { ...owner.headers, "if-none-match": "*" });
    expect(refused.statusCode).toBe(400);
  });
});

describe("a server-file download", () => {
  it("answers 304 from the export's row without reading the file", async () => {
    const exported = await service.runtime.database.db
      .insertInto("exports")
      .values({
        modpackId: packId,
        requestedBy: owner.userId,
        version: "42x",
        status: "completed",
        fileName: "cached-pack-42x.ini",
        content: "Mods=Cached\n",
        finishedAt: new Date(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const url = `/modpacks/export/${exported.id}/download`;
    const first = await get(url, owner.headers);
    expect(first.statusCode).toBe(200);
    expect(first.body).toBe("Mods=Cached\n");
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    const { result, statements } = await statementsOf(service, () =>
      get(url, { ...owner.headers, "if-none-match": etag }),
    );
    expect(result.statusCode).toBe(304);
    expect(result.body).toBe("");
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toMatch(/"content"/);

    // Another reader of the public modpack: the access check, still no file.
    const reader = await signIn(service);
    await get(url, reader.headers);
    const other = await statementsOf(service, () => get(url, { ...reader.headers, "if-none-match": etag }));
    expect(other.result.statusCode).toBe(304);
    expect(other.statements).toHaveLength(2);
    expect(other.statements.join("\n")).not.toMatch(/"content"/);
  });
});

describe("one decision per read", () => {
  let pack: string;
  let publicPack: string;
  let reader: SignedIn;

  beforeAll(async () => {
    publicPack = await createModpack(service, owner, { name: "Decided public pack", isPublic: true });
    pack = await createModpack(service, owner, { name: "Decided pack", isPublic: false });
    reader = await signIn(service, { name: 'Reader \u00e9 "quoted"' });
    await service.runtime.database.db
      .insertInto("modpackMembers")
      .values({ modpackId: pack, userId: reader.userId, permission: ["read", "add-mod"] })
      .execute();
  });

  /** The statements that apply a modpack's resource rule: the modpack joined with the caller's membership. */
  const ruleStatements = (statements: string[]) =>
    statements.filter((text) => /^select modpacks\.\*.* left join modpack_members mine /s.test(text));

  const cases = [
    { name: "a modpack, read fresh", url: () => `/modpacks/${pack}`, stale: false, statements: 1 },
    // The revalidation's rule reads the row alone (most revalidations are 304s); its members follow.
    { name: "a modpack, revalidated with a stale ETag", url: () => `/modpacks/${pack}`, stale: true, statements: 2 },
    { name: "a public modpack, read fresh", url: () => `/modpacks/public/${publicPack}`, stale: false, statements: 1 },
    { name: "a modpack's mods", url: () => `/modpacks/${pack}/mods?limit=5`, stale: false },
    { name: "a modpack's mods, revalidated", url: () => `/modpacks/${pack}/mods?limit=5`, stale: true },
    { name: "a modpack's members", url: () => `/modpacks/${pack}/members`, stale: false },
  ];

  it.each(cases)("decides the rule for $name once", async ({ url, stale, statements: expected }) => {
    for (const caller of [owner, reader]) {
      const headers = { ...caller.headers, ...(stale ? { "if-none-match": 'W/"p0.stale"' } : {}) };
      // Warm the session cache, so only the read's statements are counted.
      await get(url(), caller.headers);
      const { result, statements } = await statementsOf(service, () => get(url(), headers));
      expect(result.statusCode).toBe(200);
      expect(ruleStatements(statements)).toHaveLength(1);
      if (expected !== undefined) expect(statements).toHaveLength(expected);
    }
  });

  it("answers the same members from the rule's statement as from the members' own read", async () => {
    const fresh = await get(`/modpacks/${pack}`, owner.headers);
    const revalidated = await get(`/modpacks/${pack}`, { ...owner.headers, "if-none-match": 'W/"p0.stale"' });
    const listed = await get(`/modpacks/${pack}/members`, owner.headers);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json().members).toEqual(revalidated.json().members);
    expect(fresh.json().members).toEqual(listed.json().members);
    expect(fresh.json().members.map((member: { name: string }) => member.name)).toContain('Reader \u00e9 "quoted"');
  });
});
