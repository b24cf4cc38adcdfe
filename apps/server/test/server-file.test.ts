import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeMod, startFakeSteam } from "./fixtures/steam-api.js";
import { type CapturedLog, captureLog } from "./support/log-capture.js";
import { type InsertedMod, insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const ACCESS_DENIED = { error: { message: "Access denied", code: "FORBIDDEN" } };
const UNAUTHORIZED = { message: "Unauthorized" };

let steam: FakeSteam;
let log: CapturedLog;
let service: TestService;
let owner: SignedIn;
let member: SignedIn;
let stranger: SignedIn;
let workshopCounter = 4_100_000_000;

function get(
  url: string,
  user: SignedIn | null,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return service.app.inject({ method: "GET", url, headers: { ...(user ? user.headers : {}), ...headers } });
}

function send(
  method: "POST" | "PUT" | "PATCH" | "DELETE",
  url: string,
  user: SignedIn,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return service.app.inject({ method, url, headers: user.headers, ...(payload === undefined ? {} : { payload }) });
}

function patch(
  id: string,
  query: string,
  who: SignedIn | null,
  payload: string | Buffer,
  contentType = "text/plain; charset=utf-8",
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: "POST",
    url: `/modpacks/${id}/server-file/patch?${query}`,
    headers: { ...(who ? who.headers : {}), "content-type": contentType },
    payload,
  });
}

async function seedMod(
  name: string,
  platformModIds: string[],
  extra: { mapFolders?: string[]; requiredWorkshopIds?: string[] } = {},
): Promise<InsertedMod> {
  workshopCounter += 1;
  const mod = await insertMod(service, {
    workshopId: String(workshopCounter),
    name,
    platformModIds,
    mapFolders: extra.mapFolders ?? [],
  });
  if (extra.requiredWorkshopIds) {
    await service.runtime.database.db
      .updateTable("mods")
      .set({ requiredWorkshopIds: extra.requiredWorkshopIds })
      .where("id", "=", mod.id)
      .execute();
  }
  return mod;
}

beforeAll(async () => {
  steam = await startFakeSteam();
  log = captureLog();
  service = await startTestService({ env: { WORKSHOP_API_URL: steam.url }, logger: log.logger });
  owner = await signIn(service, { name: "Owner" });
  member = await signIn(service, { name: "Member" });
  stranger = await signIn(service, { name: "Stranger" });
});
afterAll(async () => {
  await service.stop();
  await steam.close();
});

describe("GET /modpacks/{id}/server-file", () => {
  it("renders the current mods in each format, without a generation time, the same bytes each time", async () => {
    const a = await seedMod("Mod A", ["ModA", "ModA_extra"], { mapFolders: ["AMap"] });
    const b = await seedMod("Mod B", ["ModB"]);
    const id = await insertModpack(service, { ownerId: owner.userId, name: "Zed Ünïcode", modIds: [a.id, b.id] });
    const cases = [
      {
        query: "version=41x",
        type: "text/plain; charset=utf-8",
        body: `# Modpack Collection Service\n# Modpack: Zed Ünïcode (${id})\n# Game version: 41x\nMods=ModA;ModA_extra;ModB\nWorkshopItems=${a.workshopId};${b.workshopId}\nMap=AMap;Muldraugh, KY\n`,
      },
      {
        query: "version=42x&format=ini",
        type: "text/plain; charset=utf-8",
        body: `# Modpack Collection Service\n# Modpack: Zed Ünïcode (${id})\n# Game version: 42x\nMods=\\ModA;\\ModA_extra;\\ModB\nWorkshopItems=${a.workshopId};${b.workshopId}\nMap=AMap;Muldraugh, KY\n`,
      },
      {
        query: "version=42x&format=env",
        type: "text/plain; charset=utf-8",
        body: [
          "# Modpack Collection Service",
          `# Modpack: Zed Ünïcode (${id})`,
          "# Game version: 42x",
          "MODS=\\ModA;\\ModA_extra;\\ModB",
          `WORKSHOP_ITEMS=${a.workshopId};${b.workshopId}`,
          "MAP=AMap;Muldraugh, KY",
          "",
        ].join("\n"),
      },
      {
        query: "version=41x&format=json",
        type: "application/json; charset=utf-8",
        body: JSON.stringify({
          version: "41x",
          mods: ["ModA", "ModA_extra", "ModB"],
          workshopItems: [a.workshopId, b.workshopId],
          map: ["AMap", "Muldraugh, KY"],
          findings: [],
        }),
      },
    ];
    for (const c of cases) {
      const first = await get(`/modpacks/${id}/server-file?${c.query}`, owner);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers["content-type"]).toBe(c.type);
      expect(first.body).toBe(c.body);
      expect(first.headers["modpack-check-errors"]).toBe("0");
      expect(first.headers.etag).toMatch(/^"[\w-]{43}"$/);
      const again = await get(`/modpacks/${id}/server-file?${c.query}`, owner);
      expect(again.body).toBe(first.body);
      expect(again.headers.etag).toBe(first.headers.etag);
    }
    const tags = await Promise.all(
      cases.map(async (c) => (await get(`/modpacks/${id}/server-file?${c.query}`, owner)).headers.etag),
    );
    expect(new Set(tags).size).toBe(cases.length);
  });

  it("writes 42x ids in the asked id form in every format and the patch, each form with its own ETag", async () => {
    const a = await seedMod("Form A", ["tsarslib", "Extra"]);
    const b = await seedMod("Form B", ["tsarslib"]);
    const id = await insertModpack(service, { ownerId: owner.userId, modIds: [a.id, b.id] });
    const table = [
      { idForm: "", mods: ["\\tsarslib", "\\Extra"] },
      { idForm: "&idForm=backslash", mods: ["\\tsarslib", "\\Extra"] },
      { idForm: "&idForm=plain", mods: ["tsarslib", "Extra"] },
      {
        idForm: "&idForm=workshop",
        mods: [`${a.workshopId}\\tsarslib`, `${a.workshopId}\\Extra`, `${b.workshopId}\\tsarslib`],
      },
    ];
    const tags: Record<string, Set<string>> = { ini: new Set(), json: new Set(), env: new Set() };
    for (const row of table) {
      const line = `Mods=${row.mods.join(";")}`;
      const json = await get(`/modpacks/${id}/server-file?version=42x&format=json${row.idForm}`, owner);
      expect(json.json().mods, row.idForm).toEqual(row.mods);
      // The game keeps one mod per in-game id whatever the form: the clash stands, and says why.
      const clash = (json.json().findings as { code: string; message: string }[]).find((f) => f.code === "id-clash");
      expect(clash?.message).toContain("(`idForm=workshop`) does not tell them apart");
      expect(json.headers["modpack-check-errors"]).toBe("1");
      const ini = await get(`/modpacks/${id}/server-file?version=42x${row.idForm}`, owner);
      expect(ini.body).toContain(`\n${line}\n`);
      const env = await get(`/modpacks/${id}/server-file?version=42x&format=env${row.idForm}`, owner);
      expect(env.body).toContain(`\nMODS=${row.mods.join(";")}\n`);
      const patched = await patch(id, `version=42x${row.idForm}`, owner, "PVP=true\nMods=Old\n");
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.body.split("\n")).toContain(line);
      tags.ini!.add(ini.headers.etag as string);
      tags.json!.add(json.headers.etag as string);
      tags.env!.add(env.headers.etag as string);
    }
    // The default is `backslash`: the same bytes; every other form its own.
    for (const format of ["ini", "json", "env"]) expect(tags[format]!.size, format).toBe(table.length - 1);
    const refused = await patch(id, "version=41x&idForm=workshop", owner, "Mods=Old\n");
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toBeTypeOf("string");
  });

  it("still renders a pack whose check has errors, listing them and counting them in Modpack-Check-Errors", async () => {
    const needy = await seedMod("Needs a lib", ["Needy"], { requiredWorkshopIds: ["999000111"] });
    const clash = await seedMod("Clash one", ["Same"]);
    const clash2 = await seedMod("Clash two", ["Same", "Other"]);
    const id = await insertModpack(service, { ownerId: owner.userId, modIds: [needy.id, clash.id, clash2.id] });
    const ini = await get(`/modpacks/${id}/server-file?version=41x`, owner);
    expect(ini.statusCode).toBe(200);
    const json = await get(`/modpacks/${id}/server-file?version=41x&format=json`, owner);
    const { findings } = json.json() as { findings: { severity: string; code: string }[] };
    const errors = findings.filter((finding) => finding.severity === "error");
    expect(errors.map((finding) => finding.code).sort()).toEqual(["id-clash", "missing-requirement"]);
    for (const response of [ini, json]) expect(response.headers["modpack-check-errors"]).toBe("2");
    expect(ini.body).toContain("# ERROR (missing-requirement): ");
    expect(ini.body).toContain("# ERROR (id-clash): ");
    expect(ini.body).toMatch(/\nMods=Needy;Same;Other\n/);
  });

  it("is readable by whoever may read the modpack, anyone for a public one", async () => {
    const mod = await seedMod("Shared", ["Shared"]);
    const publicId = await insertModpack(service, { ownerId: owner.userId, isPublic: true, modIds: [mod.id] });
    const privateId = await insertModpack(service, {
      ownerId: owner.userId,
      modIds: [mod.id],
      members: [{ userId: member.userId, permission: ["read"] }],
    });
    const archivedId = await insertModpack(service, { ownerId: owner.userId, isPublic: true, modIds: [mod.id] });
    await service.runtime.database.db
      .updateTable("modpacks")
      .set({ isActive: false })
      .where("id", "=", archivedId)
      .execute();
    const table: { id: string; who: SignedIn | null; status: number; body?: object }[] = [
      { id: publicId, who: null, status: 200 },
      { id: publicId, who: stranger, status: 200 },
      { id: privateId, who: owner, status: 200 },
      { id: privateId, who: member, status: 200 },
      { id: privateId, who: stranger, status: 403, body: ACCESS_DENIED },
      { id: privateId, who: null, status: 401, body: UNAUTHORIZED },
      { id: archivedId, who: stranger, status: 404 },
      { id: archivedId, who: null, status: 404 },
      { id: archivedId, who: owner, status: 200 },
      { id: "01a1fe07-0000-7000-8000-000000000000", who: owner, status: 404 },
    ];
    for (const row of table) {
      const response = await get(`/modpacks/${row.id}/server-file?version=42x`, row.who);
      expect(response.statusCode, `${row.id} as ${row.who?.userId ?? "anyone"}: ${response.body}`).toBe(row.status);
      if (row.body) expect(response.json()).toEqual(row.body);
      if (row.status === 404) expect(response.json().error.code).toBe("NOT_FOUND");
    }
    const anonymous = await get(`/modpacks/${publicId}/server-file?version=42x`, null);
    expect(anonymous.headers["cache-control"]).toBe("public, no-cache");
    const signedIn = await get(`/modpacks/${privateId}/server-file?version=42x`, member);
    expect(signedIn.headers["cache-control"]).toBe("private, no-cache");
  });

  it("refuses bad parameters with 400 and the issues", async () => {
    const id = await insertModpack(service, { ownerId: owner.userId, isPublic: true });
    const bad = [
      `/modpacks/${id}/server-file`,
      `/modpacks/${id}/server-file?version=43x`,
      `/modpacks/${id}/server-file?version=41X`,
      `/modpacks/${id}/server-file?version=41x&format=yaml`,
      `/modpacks/${id}/server-file?version=41x&format=`,
      "/modpacks/not-a-uuid/server-file?version=41x",
      `/modpacks/${id}/server-file?version=%00`,
    ];
    for (const url of bad) {
      const response = await get(url, owner);
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      expect(response.json().error.code).toBe("BAD_REQUEST");
    }
  });
});

describe("ETag and If-None-Match on the current file", () => {
  /** The ETag now, after checking that it answers 304 and a stale one does not. */
  async function tagOf(id: string, query = "version=42x"): Promise<string> {
    const response = await get(`/modpacks/${id}/server-file?${query}`, owner);
    expect(response.statusCode).toBe(200);
    const etag = response.headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"stale", ${etag}`, "*"]) {
      const cached = await get(`/modpacks/${id}/server-file?${query}`, owner, { "if-none-match": header });
      expect(cached.statusCode, header).toBe(304);
      expect(cached.body).toBe("");
      expect(cached.headers.etag).toBe(etag);
      expect(cached.headers["modpack-check-errors"]).toBe(response.headers["modpack-check-errors"]);
    }
    return etag;
  }

  it("changes on every kind of change to the file and on no other", async () => {
    const modIds = ["EtagOne", "EtagTwo"];
    // A requirement the catalogue does not have yet: the header names it by its workshop id alone.
    workshopCounter += 1;
    const requiredWorkshopId = String(workshopCounter);
    const one = await seedMod("One", [modIds[0]!], { requiredWorkshopIds: [requiredWorkshopId] });
    const two = await seedMod("Two", [modIds[1]!, "EtagTwo_b"]);
    workshopCounter += 1;
    const linkedWorkshopId = String(workshopCounter);
    steam.items.set(linkedWorkshopId, fakeMod(linkedWorkshopId, { modIds: ["Linked"] }));
    const created = await send("POST", "/mods", owner, { modAtribute: linkedWorkshopId });
    expect(created.statusCode, created.body).toBe(201);
    const linked = created.json() as { id: string };
    const id = await insertModpack(service, { ownerId: owner.userId, modIds: [one.id, two.id, linked.id] });
    const third = await seedMod("Three", ["EtagThree"]);
    const invitee = await signIn(service);

    const changes: { name: string; changesFile: boolean; act(): Promise<unknown> }[] = [
      {
        name: "the description",
        changesFile: false,
        act: () => send("PATCH", `/modpacks/${id}`, owner, { description: "A new description" }),
      },
      {
        name: "a member added",
        changesFile: false,
        act: () => send("POST", `/modpacks/${id}/members`, owner, { userId: invitee.userId, permission: ["read"] }),
      },
      {
        name: "a mod added",
        changesFile: true,
        act: () => send("POST", `/modpacks/${id}/mods`, owner, { modAtribute: third.workshopId }),
      },
      {
        name: "a mod removed",
        changesFile: true,
        act: () => send("DELETE", `/modpacks/${id}/mods/${third.id}`, owner),
      },
      {
        name: "the load order",
        changesFile: true,
        act: () =>
          send("PUT", `/modpacks/${id}/export-configuration`, owner, { modsOrder: [two.id, one.id, linked.id] }),
      },
      {
        name: "the selection",
        changesFile: true,
        act: () =>
          send("PUT", `/modpacks/${id}/export-configuration`, owner, {
            modsOrder: [two.id, one.id, linked.id],
            modConfig: { [two.id]: { selectedPlatformModIds: ["EtagTwo_b"] } },
          }),
      },
      {
        // Moves no row of the modpack: the read version follows the catalogue's titles of its
        // missing requirements, and so must the file.
        name: "a missing requirement entering the catalogue",
        changesFile: true,
        act: () => {
          steam.items.set(
            requiredWorkshopId,
            fakeMod(requiredWorkshopId, { title: "Etag Needed", modIds: ["EtagNeeded"] }),
          );
          return send("POST", "/mods", owner, { modAtribute: requiredWorkshopId });
        },
      },
      {
        name: "a catalogue refresh of a linked mod",
        changesFile: true,
        act: async () => {
          steam.items.set(
            linkedWorkshopId,
            fakeMod(linkedWorkshopId, { modIds: ["LinkedRenamed"], timeUpdated: 1_770_000_000 }),
          );
          return send("POST", `/mods/${linked.id}/refresh`, owner);
        },
      },
      {
        name: "a refresh that changes nothing in the file",
        changesFile: false,
        act: () => send("POST", `/mods/${linked.id}/refresh`, owner),
      },
    ];
    let before = await tagOf(id);
    for (const change of changes) {
      const response = (await change.act()) as LightMyRequestResponse;
      expect(response.statusCode, `${change.name}: ${response.body}`).toBeLessThan(300);
      const after = await tagOf(id);
      if (change.changesFile) {
        expect(after, change.name).not.toBe(before);
        const stale = await get(`/modpacks/${id}/server-file?version=42x`, owner, { "if-none-match": before });
        expect(stale.statusCode, change.name).toBe(200);
      } else {
        expect(after, change.name).toBe(before);
      }
      before = after;
    }
    const file = await get(`/modpacks/${id}/server-file?version=42x`, owner);
    expect(file.body).toContain("Mods=\\EtagTwo_b;\\EtagOne;\\LinkedRenamed\n");
    expect(file.body).toContain(`requires workshop item ${requiredWorkshopId} ("Etag Needed")`);
  });
});

describe("the OpenAPI document", () => {
  it("declares the current file beside the asynchronous export on the same path", async () => {
    const document = (await get("/openapi.json", null)).json();
    const path = document.paths["/modpacks/{id}/server-file"];
    expect(path.post.operationId).toBeDefined();
    const operation = path.get;
    expect(operation.operationId).toBe("getCurrentServerFile");
    expect(Object.keys(operation.responses).sort()).toEqual([
      "200",
      "304",
      "400",
      "401",
      "403",
      "404",
      "409",
      "414",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(operation.responses["200"].content).sort()).toEqual(["application/json", "text/plain"]);
    expect(operation.responses["200"].headers).toHaveProperty("Modpack-Check-Errors");
    for (const name of ["MODS", "WORKSHOP_ITEMS", "MAP", "MOD_IDS", "WORKSHOP_IDS", "MOD_NAMES", "MAP_NAMES"]) {
      expect(operation.description).toContain(`\`${name}\``);
    }
    for (const image of ["danixu", "pepecitron", "renegade-master", "indifferentbroccoli"]) {
      expect(operation.description).toContain(`\`image=${image}\``);
    }
    const parameters = (operation.parameters as { name: string; schema: { enum?: string[] } }[]).map((p) => [
      p.name,
      p.schema.enum,
    ]);
    expect(parameters).toContainEqual(["image", ["danixu", "pepecitron", "renegade-master", "indifferentbroccoli"]]);
    expect(parameters).toContainEqual(["idForm", ["plain", "backslash", "workshop"]]);
    expect(operation.security).toEqual([{ cookieAuth: [] }, { bearerAuth: [] }, {}]);

    const patch = document.paths["/modpacks/{id}/server-file/patch"].post;
    expect(patch.operationId).toBe("patchServerFile");
    expect(Object.keys(patch.requestBody.content)).toEqual(["text/plain"]);
    expect(Object.keys(patch.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "414",
      "415",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(patch.responses["200"].headers).sort()).toEqual([
      "Access-Control-Allow-Origin",
      "Map-Changed",
      "Modpack-Check-Errors",
      "Modpack-Revision",
      "Mods-Added",
      "Mods-Removed",
      "Workshop-Items-Added",
      "Workshop-Items-Removed",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
    expect(patch.description).toContain("compared case-sensitively");
  });
});

describe("POST /modpacks/{id}/server-file/patch", () => {
  let packId: string;
  let map: InsertedMod;
  let plain: InsertedMod;

  beforeAll(async () => {
    map = await seedMod("Riverside Expanded", ["RiversideX"], { mapFolders: ["RiversideX Map"] });
    plain = await seedMod("Plain mod", ["PlainMod"]);
    // A map mod of the catalogue the pack does not hold: its folder is not the owner's own.
    await seedMod("Elsewhere", ["Elsewhere"], { mapFolders: ["CatalogueTown"] });
    packId = await insertModpack(service, {
      ownerId: owner.userId,
      name: "Patch pack",
      modIds: [map.id, plain.id],
      members: [{ userId: member.userId, permission: ["read"] }],
    });
  });

  it("answers the owner's file with only the three lines replaced, byte for byte", async () => {
    const ids = `${map.workshopId};${plain.workshopId}`;
    const cases = [
      {
        name: "CRLF with a BOM, comments holding Mods= and the owner's own map",
        version: "42x",
        input:
          "\uFEFF# Server settings\r\nPVP=true\r\n# Mods=NotThis\r\nMods=Old;Gone\r\nMap=OwnTown;CatalogueTown;Muldraugh, KY\r\n\r\nPublicName=Zомбі 🧟\r\n",
        output: `\uFEFF# Server settings\r\nPVP=true\r\n# Mods=NotThis\r\nMods=\\RiversideX;\\PlainMod\r\nMap=RiversideX Map;OwnTown;Muldraugh, KY\r\n\r\nPublicName=Zомбі 🧟\r\nWorkshopItems=${ids}\r\n`,
        headers: {
          "mods-added": "2",
          "mods-removed": "2",
          "workshop-items-added": "2",
          "workshop-items-removed": "0",
          "map-changed": "true",
        },
      },
      {
        name: "LF without a final newline, duplicates",
        version: "41x",
        input: `Mods=RiversideX\nWorkshopItems=${ids}\nMods=Dup\nMap=RiversideX Map;Muldraugh, KY\nPublic=false`,
        output: `Mods=RiversideX;PlainMod\nWorkshopItems=${ids}\nMap=RiversideX Map;Muldraugh, KY\nPublic=false`,
        headers: {
          "mods-added": "1",
          "mods-removed": "0",
          "workshop-items-added": "0",
          "workshop-items-removed": "0",
          "map-changed": "false",
        },
      },
    ];
    for (const c of cases) {
      const response = await patch(packId, `version=${c.version}`, owner, Buffer.from(c.input, "utf8"));
      expect(response.statusCode, `${c.name}: ${response.body}`).toBe(200);
      expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(response.rawPayload.equals(Buffer.from(c.output, "utf8")), c.name).toBe(true);
      expect(response.headers).toMatchObject({ ...c.headers, "modpack-check-errors": "0" });
      expect(response.headers["cache-control"]).toBe("no-store");
    }
  });

  it("keeps every other byte of hostile and messy files", async () => {
    const lines = `Mods=\\RiversideX;\\PlainMod`;
    const items = `WorkshopItems=${map.workshopId};${plain.workshopId}`;
    const mapLine = "Map=RiversideX Map;Muldraugh, KY";
    const long = `ServerWelcomeMessage=${"<RGB:1,0,0> Welcome ".repeat(20_000)}`;
    const cases = [
      {
        name: "missing keys, CRLF, no final newline",
        input: "PVP=true\r\nPublic=false",
        output: `PVP=true\r\nPublic=false\r\n${lines}\r\n${items}\r\n${mapLine}`,
      },
      {
        name: "a very long line stays whole",
        input: `${long}\nMods=Old\n`,
        output: `${long}\n${lines}\n${items}\n${mapLine}\n`,
      },
      {
        name: "keys of another case and commented keys are not ours",
        input: "mods=lower\n  # Mods=Commented\n#Map=Nope\nMODS=upper\n",
        output: `mods=lower\n  # Mods=Commented\n#Map=Nope\nMODS=upper\n${lines}\n${items}\n${mapLine}\n`,
      },
      {
        name: "UTF-8 names, tabs and a U+2028 inside a value",
        input: "PublicName=\tСервер 🧟\u2028ünï\n Mods = Old \nWorkshopItems=\n",
        output: `PublicName=\tСервер 🧟\u2028ünï\n${lines}\n${items}\n${mapLine}\n`,
      },
    ];
    for (const c of cases) {
      const response = await patch(packId, "version=42x", owner, Buffer.from(c.input, "utf8"));
      expect(response.statusCode, `${c.name}: ${response.body.slice(0, 200)}`).toBe(200);
      expect(response.rawPayload.equals(Buffer.from(c.output, "utf8")), c.name).toBe(true);
    }
  });

  it("answers { content, changes } with format=json, and a member may patch", async () => {
    const response = await patch(packId, "version=41x&format=json", member, "PVP=true\n");
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.json()).toEqual({
      content: `PVP=true\nMods=RiversideX;PlainMod\nWorkshopItems=${map.workshopId};${plain.workshopId}\nMap=RiversideX Map;Muldraugh, KY\n`,
      changes: { modsAdded: 2, modsRemoved: 0, workshopItemsAdded: 2, workshopItemsRemoved: 0, mapChanged: true },
    });
  });

  it("refuses bad uploads and callers, and keeps no trace of the file", async () => {
    const marker = `SecretSetting-${Date.now()}`;
    const table: { name: string; status: number; send(): Promise<LightMyRequestResponse> }[] = [
      { name: "NUL", status: 400, send: () => patch(packId, "version=41x", owner, `${marker}=1\nMods=\u0000\n`) },
      {
        name: "invalid UTF-8",
        status: 400,
        send: () =>
          patch(
            packId,
            "version=41x",
            owner,
            Buffer.concat([Buffer.from(`${marker}=`), Buffer.from([0xc3, 0x28, 0xff])]),
          ),
      },
      {
        name: "a lone surrogate encoded (CESU)",
        status: 400,
        send: () => patch(packId, "version=41x", owner, Buffer.from([0x41, 0x3d, 0xed, 0xa0, 0x80, 0x0a])),
      },
      {
        name: "over 1 MiB",
        status: 413,
        send: () => patch(packId, "version=41x", owner, `${marker}=${"x".repeat(1024 * 1024)}\n`),
      },
      {
        name: "JSON instead of text",
        status: 415,
        send: () => patch(packId, "version=41x", owner, `{"${marker}":1}`, "application/json"),
      },
      { name: "no version", status: 400, send: () => patch(packId, "", owner, `${marker}=1\n`) },
      {
        name: "format env is not a patch form",
        status: 400,
        send: () => patch(packId, "version=41x&format=env", owner, `${marker}=1\n`),
      },
      {
        name: "a stranger on a private pack",
        status: 403,
        send: () => patch(packId, "version=41x", stranger, `${marker}=1\n`),
      },
      {
        name: "anyone on a private pack",
        status: 401,
        send: () => patch(packId, "version=41x", null, `${marker}=1\n`),
      },
      {
        name: "no body",
        status: 400,
        send: () =>
          service.app.inject({
            method: "POST",
            url: `/modpacks/${packId}/server-file/patch?version=41x`,
            headers: owner.headers,
          }),
      },
    ];
    for (const row of table) {
      const response = await row.send();
      expect(response.statusCode, `${row.name}: ${response.body}`).toBe(row.status);
      expect(response.json().error ?? response.json()).toHaveProperty("message");
    }
    const ok = await patch(packId, "version=41x", owner, `${marker}=1\n`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body.startsWith(`${marker}=1\n`)).toBe(true);
    expect(log.text()).not.toContain(marker);
    const stored = await service.runtime.database.db
      .selectFrom("exports")
      .select("id")
      .where("modpackId", "=", packId)
      .execute();
    expect(stored).toEqual([]);
  });
});
