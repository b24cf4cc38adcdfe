import { type Operation, operations } from "@modpack/contract";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const NO_PERMISSION = { message: "Do not have permission" };
const ACCESS_DENIED = { error: { message: "Access denied", code: "FORBIDDEN" } };
const SOME_ID = "01a1fe07-0000-7000-8000-000000000000";

let service: TestService;
let owner: SignedIn;
let admin: SignedIn;
let stranger: SignedIn;
let packA: string;
let packB: string;
let publicPack: string;
let strangersPrivate: string;

function call(
  method: string,
  url: string,
  bearer: string | null,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: method as "GET",
    url,
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function createToken(who: SignedIn, body: object): Promise<LightMyRequestResponse> {
  return service.app.inject({ method: "POST", url: "/auth/tokens", headers: who.headers, payload: body });
}

async function tokenOf(who: SignedIn, body: object): Promise<string> {
  const response = await createToken(who, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json().token;
}

beforeAll(async () => {
  service = await startTestService({ role: "api" });
  owner = await signIn(service, { name: "Owner" });
  admin = await signIn(service, { name: "Admin", role: "admin" });
  stranger = await signIn(service, { name: "Stranger" });
  const mod = await insertMod(service, { workshopId: "4200000001", name: "Scoped mod", platformModIds: ["Scoped"] });
  packA = await insertModpack(service, { ownerId: owner.userId, name: "Pack A", modIds: [mod.id] });
  packB = await insertModpack(service, { ownerId: owner.userId, name: "Pack B", modIds: [mod.id] });
  publicPack = await insertModpack(service, { ownerId: owner.userId, name: "Public pack", isPublic: true });
  strangersPrivate = await insertModpack(service, { ownerId: stranger.userId, name: "Not yours" });
});
afterAll(() => service.stop());

describe("POST /auth/tokens scopes and modpackIds", () => {
  it("creates tokens with their scopes and modpacks, and lists them", async () => {
    const user = await signIn(service);
    const mine = await insertModpack(service, { ownerId: user.userId });
    const cases = [
      { body: { name: "default" }, scopes: ["read", "write"], modpackIds: null },
      { body: { name: "read", scopes: ["read"] }, scopes: ["read"], modpackIds: null },
      { body: { name: "both", scopes: ["read", "write"] }, scopes: ["read", "write"], modpackIds: null },
      {
        body: { name: "limited", scopes: ["read"], modpackIds: [mine, publicPack] },
        scopes: ["read"],
        modpackIds: [mine, publicPack],
      },
    ];
    for (const c of cases) {
      const response = await createToken(user, c.body);
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json()).toMatchObject({ name: c.body.name, scopes: c.scopes, modpackIds: c.modpackIds });
    }
    const listed = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: user.headers });
    const byName = Object.fromEntries(
      listed
        .json()
        .data.map((token: { name: string; scopes: string[]; modpackIds: string[] | null }) => [
          token.name,
          { scopes: token.scopes, modpackIds: token.modpackIds },
        ]),
    );
    for (const c of cases) expect(byName[c.body.name]).toEqual({ scopes: c.scopes, modpackIds: c.modpackIds });
  });

  it("gives a token made before scopes existed both scopes and no limit", async () => {
    const user = await signIn(service);
    const { db } = service.runtime.database;
    await db
      .insertInto("apiTokens")
      .values({
        userId: user.userId,
        name: "old",
        tokenHash: "f".repeat(64),
        expiresAt: new Date(Date.now() + 86_400_000),
      })
      .execute();
    const listed = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: user.headers });
    expect(listed.json().data).toEqual([
      expect.objectContaining({ name: "old", scopes: ["read", "write"], modpackIds: null }),
    ]);
  });

  it("refuses bad scopes and modpack lists and creates nothing", async () => {
    const user = await signIn(service);
    const many = Array.from(
      { length: 101 },
      (_, index) => `01a1fe07-0000-7000-8000-${String(index).padStart(12, "0")}`,
    );
    const table: { body: object; status: number }[] = [
      { body: { name: "t", scopes: ["write"] }, status: 400 },
      { body: { name: "t", scopes: [] }, status: 400 },
      { body: { name: "t", scopes: ["read", "read"] }, status: 400 },
      { body: { name: "t", scopes: ["read", "admin"] }, status: 400 },
      { body: { name: "t", scopes: "read" }, status: 400 },
      { body: { name: "t", modpackIds: [] }, status: 400 },
      { body: { name: "t", modpackIds: many }, status: 400 },
      { body: { name: "t", modpackIds: [publicPack, publicPack] }, status: 400 },
      { body: { name: "t", modpackIds: ["not-a-uuid"] }, status: 400 },
      { body: { name: "t", modpackIds: [strangersPrivate] }, status: 422 },
      { body: { name: "t", modpackIds: [publicPack, SOME_ID] }, status: 422 },
    ];
    for (const row of table) {
      const response = await createToken(user, row.body);
      expect(response.statusCode, `${JSON.stringify(row.body)}: ${response.body}`).toBe(row.status);
    }
    const listed = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: user.headers });
    expect(listed.json().data).toEqual([]);
  });
});

/** A REST call of an operation with placeholder ids and an empty body: the scope is checked before either is read. */
function restCall(operation: Operation, bearer: string) {
  const { method, path } = operation.meta.openapi!;
  const url = path.replace(/\{\w+\}/g, SOME_ID);
  return call(method, url, bearer, method === "GET" || method === "DELETE" ? undefined : {});
}

function trpcCall(operation: Operation, bearer: string) {
  if (operation.type === "query") {
    return call("GET", `/trpc/${operation.name}?input=${encodeURIComponent(JSON.stringify({ id: SOME_ID }))}`, bearer);
  }
  return call("POST", `/trpc/${operation.name}`, bearer, { id: SOME_ID }, { "content-type": "application/json" });
}

describe("a read-only token", () => {
  const writes = operations().filter((operation) => operation.meta.scope === "write" && operation.meta.openapi);
  const reads = operations().filter((operation) => operation.meta.scope === "read" && operation.meta.openapi);

  it("is refused every write operation on REST and /trpc with the role permission's 403, and changes nothing", async () => {
    expect(writes.length).toBeGreaterThan(20);
    // An admin's read-only token: the role would allow every operation, so the 403 is the scope's.
    const token = await tokenOf(admin, { name: "read-only admin", scopes: ["read"] });
    const before = await service.runtime.database.db.selectFrom("modpacks").select("id").execute();
    for (const operation of writes) {
      const rest = await restCall(operation, token);
      expect(rest.statusCode, `${operation.name} over REST: ${rest.body}`).toBe(403);
      expect(rest.json()).toEqual(NO_PERMISSION);
      const trpc = await trpcCall(operation, token);
      expect(trpc.statusCode, `${operation.name} over /trpc: ${trpc.body}`).toBe(403);
      expect(trpc.json().error.data.body).toEqual(NO_PERMISSION);
    }
    expect(await service.runtime.database.db.selectFrom("modpacks").select("id").execute()).toEqual(before);
  });

  it("reaches every read operation (a refusal there is never the scope's)", async () => {
    const token = await tokenOf(admin, { name: "read-only admin", scopes: ["read"] });
    for (const operation of reads) {
      const response = await restCall(operation, token);
      expect(response.json(), `${operation.name}: ${response.body}`).not.toEqual(NO_PERMISSION);
    }
  });

  it("may fetch and patch the current server file, and request no export", async () => {
    const token = await tokenOf(owner, { name: "server start", scopes: ["read"], modpackIds: [packA] });
    const file = await call("GET", `/modpacks/${packA}/server-file?version=42x`, token);
    expect(file.statusCode, file.body).toBe(200);
    expect(file.body).toContain("Mods=\\Scoped\n");
    const patched = await call("POST", `/modpacks/${packA}/server-file/patch?version=41x`, token, "PVP=true\n", {
      "content-type": "text/plain",
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.body).toBe("PVP=true\nMods=Scoped\nWorkshopItems=4200000001\nMap=Muldraugh, KY\n");
    const exported = await call("POST", `/modpacks/${packA}/server-file`, token, { version: "42x" });
    expect(exported.statusCode).toBe(403);
    expect(exported.json()).toEqual(NO_PERMISSION);
  });

  it("reads the notification stream, on its route and as a /trpc subscription", async () => {
    const token = await tokenOf(owner, { name: "stream", scopes: ["read"] });
    const address = await service.app.listen({ port: 0, host: "127.0.0.1" });
    for (const path of ["/notifications/stream", "/trpc/notifications.stream"]) {
      const controller = new AbortController();
      const response = await fetch(`${address}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toContain("text/event-stream");
      controller.abort();
      await response.body?.cancel().catch(() => {});
    }
  });
});

describe("a token limited to modpacks", () => {
  it("reads its modpacks, any other as a stranger would, and lists only its own", async () => {
    const token = await tokenOf(owner, { name: "pack A", scopes: ["read", "write"], modpackIds: [packA] });
    const table: { url: string; status: number; body?: object }[] = [
      { url: `/modpacks/${packA}`, status: 200 },
      { url: `/modpacks/${packA}/server-file?version=41x`, status: 200 },
      { url: `/modpacks/${packA}/mods`, status: 200 },
      { url: `/modpacks/${packB}`, status: 403, body: ACCESS_DENIED },
      { url: `/modpacks/${packB}/server-file?version=41x`, status: 403, body: ACCESS_DENIED },
      { url: `/modpacks/${packB}/export-configuration`, status: 403, body: ACCESS_DENIED },
      { url: `/modpacks/${publicPack}`, status: 200 },
      { url: `/modpacks/public/${publicPack}`, status: 200 },
      { url: "/modpacks/public", status: 200 },
      { url: "/mods", status: 200 },
    ];
    for (const row of table) {
      const response = await call("GET", row.url, token);
      expect(response.statusCode, `${row.url}: ${response.body}`).toBe(row.status);
      if (row.body) expect(response.json()).toEqual(row.body);
    }
    const mine = await call("GET", "/modpacks/my", token);
    expect(mine.json().data.map((pack: { id: string }) => pack.id)).toEqual([packA]);
    // Its user's other modpacks cannot be changed through it either.
    const renamed = await call("PATCH", `/modpacks/${packB}`, token, { name: "Renamed" });
    expect(renamed.statusCode).toBe(403);
    const renamedA = await call("PATCH", `/modpacks/${packA}`, token, { name: "Pack A renamed" });
    expect(renamedA.statusCode, renamedA.body).toBe(200);
    const session = await service.app.inject({ method: "GET", url: "/modpacks/my", headers: owner.headers });
    expect(session.json().pagination.total).toBe(3);
  });

  it("is refused the operations over the whole account, so it can never make a wider token", async () => {
    const token = await tokenOf(admin, { name: "limited admin", modpackIds: [publicPack] });
    const table: { method: string; url: string; payload?: object }[] = [
      { method: "POST", url: "/auth/tokens", payload: { name: "wider" } },
      { method: "GET", url: "/auth/tokens" },
      { method: "DELETE", url: `/auth/tokens/${SOME_ID}` },
      { method: "GET", url: "/notifications" },
      { method: "PATCH", url: "/notifications/read-all" },
      { method: "GET", url: "/notifications/stream" },
      { method: "GET", url: "/admin/users" },
      { method: "GET", url: "/admin/stats" },
    ];
    for (const row of table) {
      const response = await call(row.method, row.url, token, row.payload);
      expect(response.statusCode, `${row.method} ${row.url}: ${response.body}`).toBe(403);
      expect(response.json()).toEqual(NO_PERMISSION);
    }
    const viaTrpc = await call(
      "POST",
      "/trpc/auth.createToken",
      token,
      { name: "wider" },
      { "content-type": "application/json" },
    );
    expect(viaTrpc.statusCode, viaTrpc.body).toBe(403);
    const tokens = await service.app.inject({ method: "GET", url: "/auth/tokens", headers: admin.headers });
    expect(tokens.json().data.map((listed: { name: string }) => listed.name)).not.toContain("wider");
    // What it is for still works.
    expect((await call("GET", `/modpacks/${publicPack}/server-file?version=41x`, token)).statusCode).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  it("marks each operation's token scope and tabulates what a read-only token may call", async () => {
    const document = (await call("GET", "/openapi.json", null)).json();
    expect(document.paths["/modpacks"].post["x-token-scope"]).toBe("write");
    expect(document.paths["/admin/users"].get["x-token-scope"]).toBe("write");
    expect(document.paths["/auth/tokens"].get["x-token-scope"]).toBe("write");
    expect(document.paths["/modpacks/{id}"].get["x-token-scope"]).toBe("read");
    expect(document.paths["/modpacks/{id}/server-file"].get["x-token-scope"]).toBe("read");
    expect(document.paths["/modpacks/{id}/server-file"].post["x-token-scope"]).toBe("write");
    expect(document.paths["/modpacks/{id}/server-file/patch"].post["x-token-scope"]).toBe("read");
    expect(document.paths["/notifications/stream"].get["x-token-scope"]).toBe("read");
    const description: string = document.info.description;
    expect(document.paths["/modpacks/{id}/server-starts"].post["x-token-scope"]).toBe("report");
    expect(description).toContain(
      "| Operation | Role permission | Read-only token | Report token | Token limited to modpacks |",
    );
    expect(description).toContain("| `POST /modpacks/{id}/server-file/patch` | none | yes | yes | yes |");
    expect(description).toContain("| `POST /modpacks/{id}/server-file` | `modpack.export` | no | no | yes |");
    expect(description).toContain("| `POST /modpacks/{id}/server-starts` | `modpack.read` | no | yes | yes |");
    expect(description).toContain("| `GET /admin/users` | `admin.access` | no | no | no |");
    expect(description).toContain("| `GET /notifications/stream` | `notification.read` | yes | yes | no |");
    expect(description).toContain(
      "| `GET /modpacks/public` | none | yes (no credentials needed) | yes (no credentials needed) | yes |",
    );
  });
});
