/**
 * Start reports over HTTP, with logs servers really printed (`test/fixtures/server-logs/`, each
 * source named in its SOURCES.md): the outcome, the ties to the pack's mods, what a report changes
 * (`lastGoodRevision`, `revision=last-good`, the check, the owner's notification) and who may report.
 */
import { readFileSync } from "node:fs";
import type { LightMyRequestResponse } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordPendingInitialRevisions } from "../src/db/modpack-revisions.js";
import { addMembers, insertModpack, insertMods } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

let service: TestService;
let owner: SignedIn;
let member: SignedIn;
let stranger: SignedIn;
let mods: { id: string; workshopId: string }[];

const log = (name: string) => readFileSync(new URL(`./fixtures/server-logs/${name}`, import.meta.url), "utf8");
const CLEAN_42 = "b42-clean-start-pepenotti-zomboid-server.log";
const CLEAN_41 = "b41-clean-start-gabrielotero-pz-server.log";

type Who = SignedIn | { headers: Record<string, string> } | null;

function report(packId: string, query: string, who: Who, body: string | Buffer): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: "POST",
    url: `/modpacks/${packId}/server-starts?${query}`,
    headers: { ...(who ? who.headers : {}), "content-type": "text/plain; charset=utf-8" },
    payload: body,
  });
}

function get(url: string, who: Who = owner) {
  return service.app.inject({ method: "GET", url, headers: who ? who.headers : {} });
}

/** A pack holding the mods the fixture logs name, at revision 1. */
async function pack(isPublic = false): Promise<string> {
  const id = await insertModpack(service, { ownerId: owner.userId, isPublic, modIds: mods.map((mod) => mod.id) });
  await addMembers(service, id, [{ userId: member.userId, permission: ["read"] }]);
  await service.runtime.database.db.insertInto("pendingInitialRevisions").values({ modpackId: id }).execute();
  await recordPendingInitialRevisions(service.runtime.database.db);
  return id;
}

async function token(body: object): Promise<{ headers: Record<string, string> }> {
  const response = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    headers: owner.headers,
    payload: { name: "server", ...body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { headers: { authorization: `Bearer ${response.json().token}` } };
}

beforeAll(async () => {
  service = await startTestService();
  owner = await signIn(service, { name: "Owner" });
  member = await signIn(service, { name: "Member" });
  stranger = await signIn(service, { name: "Stranger" });
  mods = await insertMods(service, [
    // The in-game id, the workshop item and the title the fixture logs name.
    { workshopId: "2458631365", name: "Expanded Helicopter Events", platformModIds: ["ExpandedHelicopterEvents"] },
    { workshopId: "3431734923", name: "A mod that failed to download", platformModIds: ["NoDownload"] },
    { workshopId: "2392709985", name: "tsar's Common Library", platformModIds: ["tsarslib"] },
  ]);
});
afterAll(async () => {
  await service.stop();
});

describe("POST /modpacks/{id}/server-starts", () => {
  const table: {
    log: string;
    version: "41x" | "42x";
    outcome: string;
    findings: [string, number | null][];
  }[] = [
    { log: CLEAN_41, version: "41x", outcome: "started", findings: [] },
    { log: CLEAN_42, version: "42x", outcome: "started", findings: [] },
    {
      log: "b41-missing-mod-ehe-194.log",
      version: "41x",
      outcome: "failed",
      findings: [["mod-not-found", 0]],
    },
    {
      log: "b41-missing-mod-jrx-sjg-zehioidserver.log",
      version: "41x",
      outcome: "failed",
      findings: [
        ["mod-not-found", null],
        ["mod-not-found", null],
        ["mod-not-found", null],
        ["mod-not-found", null],
        ["mod-not-found", null],
        ["mod-not-found", null],
        ["mod-not-found", null],
        ["mod-not-found", 2],
      ],
    },
    {
      log: "b42-workshop-download-failed-steam-for-linux-12531.log",
      version: "42x",
      outcome: "failed",
      findings: [
        ["workshop-download-failed", 1],
        ["not-started", null],
      ],
    },
    { log: "b41-lua-error-ehe-86.log", version: "41x", outcome: "incomplete", findings: [["lua-error", 0]] },
    { log: "b41-lua-require-failed-ehe-109.log", version: "41x", outcome: "incomplete", findings: [["lua-error", 0]] },
    {
      log: "b41-crash-before-start-bramenn-pz.log",
      version: "41x",
      outcome: "failed",
      findings: [["not-started", null]],
    },
    {
      log: "b42-admin-prompt-blocks-start-pepenotti-zomboid-server.log",
      version: "42x",
      outcome: "incomplete",
      findings: [],
    },
  ];

  it.each(table)("$log: $outcome", async ({ log: name, version, outcome, findings }) => {
    const id = await pack();
    const response = await report(id, `version=${version}`, owner, log(name));
    expect(response.statusCode, response.body).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ revision: 1, version, outcome });
    expect(
      body.findings.map((finding: { code: string; modId: string | null }) => [finding.code, finding.modId]),
    ).toEqual(findings.map(([code, index]) => [code, index === null ? null : mods[index]!.id]));
    const listed = (await get(`/modpacks/${id}/server-starts`)).json();
    expect(listed.data[0]).toEqual(body);
  });

  it("ends in not-started when the process ended before the server was up", async () => {
    const id = await pack();
    const full = log(CLEAN_41);
    const cut = full.slice(0, full.indexOf("*** SERVER STARTED"));
    const incomplete = await report(id, "version=41x", owner, cut);
    expect(incomplete.json().outcome).toBe("incomplete");
    const ended = await report(id, "version=41x&exitCode=1", owner, cut);
    expect(ended.json()).toMatchObject({ outcome: "failed", findings: [{ code: "not-started", severity: "error" }] });
  });

  it("keeps the last revision that started cleanly per version, and serves it as revision=last-good", async () => {
    const id = await pack();
    expect((await get(`/modpacks/${id}`)).json().lastGoodRevision).toEqual({ "41x": null, "42x": null });
    const none = await get(`/modpacks/${id}/server-file?version=42x&revision=last-good`);
    expect(none.statusCode).toBe(409);
    expect(none.json().error.message).toContain("No revision");

    expect((await report(id, "version=42x&revision=1", owner, log(CLEAN_42))).statusCode).toBe(201);
    expect((await get(`/modpacks/${id}`)).json().lastGoodRevision).toEqual({ "41x": null, "42x": 1 });
    // A second revision that fails keeps the first as the good one.
    await service.runtime.database.db
      .updateTable("modpackMods")
      .set({ isActive: false })
      .where("modpackId", "=", id)
      .where("modId", "=", mods[2]!.id)
      .execute();
    await service.runtime.database.db.insertInto("pendingInitialRevisions").values({ modpackId: id }).execute();
    await recordPendingInitialRevisions(service.runtime.database.db);
    expect((await get(`/modpacks/${id}`)).json().revision).toBe(2);
    await report(id, "version=42x&revision=2", owner, log("b42-missing-mod-wengera-zomboid-mod-nutrition.log"));
    const good = await get(`/modpacks/${id}/server-file?version=42x&revision=last-good`);
    expect(good.statusCode, good.body).toBe(200);
    expect(good.headers["modpack-revision"]).toBe("1");
    // The latest report of a revision decides: revision 1 failing now leaves none.
    await report(id, "version=42x&revision=1", owner, log("b42-missing-mod-wengera-zomboid-mod-nutrition.log"));
    expect((await get(`/modpacks/${id}`)).json().lastGoodRevision).toEqual({ "41x": null, "42x": null });
    expect((await report(id, "version=42x&revision=3", owner, log(CLEAN_42))).statusCode).toBe(404);
  });

  it("adds the latest report's errors of the current revision to the check, and notifies the owner once per failed report", async () => {
    const id = await pack();
    const { db } = service.runtime.database;
    const notifications = () =>
      db
        .selectFrom("notifications")
        .select(["content"])
        .where("userId", "=", owner.userId)
        .where(sql<boolean>`metadata ->> 'modpackId' = ${id}`)
        .orderBy("createdAt", "desc")
        .execute();
    await report(id, "version=41x", member, log("b41-missing-mod-ehe-194.log"));
    const check = (await get(`/modpacks/${id}/check?version=41x`)).json();
    expect(check.findings).toContainEqual(
      expect.objectContaining({ code: "seen-at-start", severity: "warning", modId: mods[0]!.id }),
    );
    const other = (await get(`/modpacks/${id}/check?version=42x`)).json();
    expect(other.findings.some((finding: { code: string }) => finding.code === "seen-at-start")).toBe(false);
    const file = await get(`/modpacks/${id}/server-file?version=41x`);
    expect(file.body).not.toContain("seen-at-start");
    const sent = await notifications();
    expect(sent).toHaveLength(1);
    expect(sent[0]!.content).toContain("Expanded Helicopter Events");
    // A clean start after it clears the warning; a started report notifies nobody.
    await report(id, "version=41x", owner, log(CLEAN_41));
    expect(
      (await get(`/modpacks/${id}/check?version=41x`))
        .json()
        .findings.some((f: { code: string }) => f.code === "seen-at-start"),
    ).toBe(false);
    expect(await notifications()).toHaveLength(1);
  });

  it("lets the owner, members and report or write tokens report, and nobody else", async () => {
    const id = await pack(true);
    const other = await pack();
    const reportToken = await token({ scopes: ["read", "report"], modpackIds: [id] });
    const readToken = await token({ scopes: ["read"], modpackIds: [id] });
    const writeToken = await token({ scopes: ["read", "write"] });
    const table: { name: string; who: Who; pack: string; status: number }[] = [
      { name: "owner", who: owner, pack: id, status: 201 },
      { name: "member", who: member, pack: id, status: 201 },
      { name: "report token", who: reportToken, pack: id, status: 201 },
      { name: "write token", who: writeToken, pack: id, status: 201 },
      { name: "report token, another pack", who: reportToken, pack: other, status: 403 },
      { name: "read-only token", who: readToken, pack: id, status: 403 },
      { name: "stranger, public pack", who: stranger, pack: id, status: 403 },
      { name: "anonymous", who: null, pack: id, status: 401 },
    ];
    for (const row of table) {
      const response = await report(row.pack, "version=42x", row.who, log(CLEAN_42));
      expect(response.statusCode, `${row.name}: ${response.body}`).toBe(row.status);
    }
    // A report token changes nothing else.
    const write = await service.app.inject({
      method: "PATCH",
      url: `/modpacks/${id}`,
      headers: { ...reportToken.headers, "content-type": "application/json" },
      payload: { name: "Renamed" },
    });
    expect(write.statusCode).toBe(403);
    expect((await get(`/modpacks/${id}/server-starts`, stranger)).statusCode).toBe(403);
    expect((await get(`/modpacks/${id}/server-starts`, member)).json().data).toHaveLength(4);
  });

  it("refuses a log over 16 MiB with 413, replaces invalid UTF-8, and wants text", async () => {
    const id = await pack();
    const line = "LOG  : General      f:0 st:34,832,371> padding padding padding padding padding padding\n";
    const huge = Buffer.from(line.repeat(Math.ceil((16 * 1024 * 1024 + 1) / line.length)));
    const tooLarge = await report(id, "version=42x", owner, huge);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json().error.message).toContain("16 MiB");
    const invalid = Buffer.concat([
      Buffer.from('WARN : Mod          f:0 st:1> required mod "Bad\xff'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('Id" not found\n'),
    ]);
    const replaced = await report(id, "version=42x", owner, invalid);
    expect(replaced.statusCode, replaced.body).toBe(201);
    expect(replaced.json().findings[0].platformModId).toContain("\uFFFD");
    const json = await service.app.inject({
      method: "POST",
      url: `/modpacks/${id}/server-starts?version=42x`,
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: { log: "x" },
    });
    expect(json.statusCode).toBe(415);
    for (const query of ["", "version=43x", "version=42x&revision=x", "version=42x&exitCode=x"]) {
      expect((await report(id, query, owner, log(CLEAN_42))).statusCode, query).toBe(400);
    }
  });
});
