import { webhookEventTypes } from "@modpack/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../dev/webhook-receiver.js";
import { createModpack } from "./support/modpacks.js";
import { addMembers } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";
import { waitFor } from "./support/wait.js";

/**
 * Managing webhooks with private targets refused (the production default). Names resolve through
 * the test's own table: nothing here resolves or connects to a public name or address.
 */
const names = new Map<string, string[]>([
  ["hooks.example.com", ["93.184.215.14"]],
  ["v6.example.com", ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"]],
  ["discord.com", ["162.159.135.232"]],
  ["internal.example.com", ["10.0.0.1"]],
  ["loopback.example.com", ["127.0.0.1"]],
  ["metadata.example.com", ["169.254.169.254"]],
  ["mixed.example.com", ["93.184.215.14", "192.168.1.20"]],
  ["rebind.example.com", ["93.184.215.14"]],
]);

let service: TestService;
let receiver: WebhookReceiver;
let owner: SignedIn;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  service = await startTestService({
    // The webhook rate limit has a test of its own (rate-limit.test.ts); here it would cut the tables short.
    env: { RATE_LIMIT_WEBHOOK_PER_MINUTE: "100000" },
    resolveHost: async (hostname) => {
      const addresses = names.get(hostname);
      if (!addresses) throw new Error(`${hostname}: unknown`);
      return addresses;
    },
  });
  owner = await signIn(service, { name: "Owner" });
});
afterAll(async () => {
  await service.stop();
  await receiver.close();
});

function call(method: "GET" | "POST" | "PATCH" | "DELETE", url: string, who: SignedIn | null, payload?: object) {
  return service.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
}

async function createWebhook(modpackId: string, body: object) {
  const response = await call("POST", `/modpacks/${modpackId}/webhooks`, owner, body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

async function webhookCount(modpackId: string): Promise<number> {
  const rows = await service.runtime.database.db
    .selectFrom("webhooks")
    .select("id")
    .where("modpackId", "=", modpackId)
    .execute();
  return rows.length;
}

describe("POST /modpacks/{id}/webhooks", () => {
  it("answers the webhook with its secret once, defaults every event, and never shows the secret again", async () => {
    const modpackId = await createModpack(service, owner);
    const created = await createWebhook(modpackId, { url: "https://hooks.example.com/pz?x=1", description: "Restart" });
    expect(created).toMatchObject({
      modpackId,
      url: "https://hooks.example.com/pz?x=1",
      events: [...webhookEventTypes],
      format: "standard",
      description: "Restart",
      isActive: true,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const bytes = Buffer.from(created.secret.slice("whsec_".length), "base64").length;
    expect(bytes).toBeGreaterThanOrEqual(24);
    expect(bytes).toBeLessThanOrEqual(64);

    const list = await call("GET", `/modpacks/${modpackId}/webhooks`, owner);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(created.secret);
    expect(list.json().data).toEqual([{ ...created, secret: undefined }].map(({ secret: _s, ...rest }) => rest));

    // Stored encrypted: neither the secret nor its key material is in the row.
    const row = await service.runtime.database.db
      .selectFrom("webhooks")
      .select("secret")
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(created.secret.slice("whsec_".length, 20));
    // Creating sends nothing.
    const log = await call("GET", `/modpacks/${modpackId}/webhooks/${created.id}/deliveries`, owner);
    expect(log.json()).toEqual({ data: [] });
  });

  it("takes the Discord format for a Discord URL and masks its token in every answer", async () => {
    const modpackId = await createModpack(service, owner);
    const token = "Zx9-very_secret.TOKEN";
    const created = await createWebhook(modpackId, { url: `https://discord.com/api/webhooks/123456789/${token}` });
    expect(created.format).toBe("discord");
    expect(created.url).toBe("https://discord.com/api/webhooks/123456789/****");
    const list = await call("GET", `/modpacks/${modpackId}/webhooks`, owner);
    expect(list.body).not.toContain(token);
    // The same URL again is a conflict, though it is shown masked.
    const again = await call("POST", `/modpacks/${modpackId}/webhooks`, owner, {
      url: `https://discord.com/api/webhooks/123456789/${token}`,
    });
    expect(again.statusCode).toBe(409);
    // A standard format may be asked for explicitly.
    const standard = await createWebhook(modpackId, {
      url: "https://discord.com/api/webhooks/987/abc",
      format: "standard",
    });
    expect(standard.format).toBe("standard");
  });

  it.each([
    { case: "a URL over 2,048 characters", body: { url: `https://hooks.example.com/${"a".repeat(2030)}` } },
    { case: "ftp", body: { url: "ftp://hooks.example.com/x" } },
    { case: "javascript", body: { url: "javascript:alert(1)" } },
    { case: "a user and password", body: { url: "https://admin:hunter2@hooks.example.com/" } },
    { case: "a user only", body: { url: "https://admin@hooks.example.com/" } },
    { case: "not a URL", body: { url: "hooks.example.com/x" } },
    { case: "an empty URL", body: { url: "" } },
    { case: "a number as URL", body: { url: 42 } },
    { case: "no URL", body: { events: ["mods.updated"] } },
    { case: "no events", body: { url: "https://hooks.example.com/a", events: [] } },
    { case: "an unknown event", body: { url: "https://hooks.example.com/a", events: ["mods.deleted"] } },
    { case: "an event in another case", body: { url: "https://hooks.example.com/a", events: ["Mods.Updated"] } },
    {
      case: "a repeated event",
      body: { url: "https://hooks.example.com/a", events: ["webhook.test", "webhook.test"] },
    },
    { case: "events as a string", body: { url: "https://hooks.example.com/a", events: "mods.updated" } },
    { case: "an unknown format", body: { url: "https://hooks.example.com/a", format: "slack" } },
    { case: "a long description", body: { url: "https://hooks.example.com/a", description: "é".repeat(201) } },
  ])("refuses $case with 400 and creates nothing", async ({ body }) => {
    const modpackId = await createModpack(service, owner);
    const response = await call("POST", `/modpacks/${modpackId}/webhooks`, owner, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.code).toBe("BAD_REQUEST");
    expect(await webhookCount(modpackId)).toBe(0);
  });

  it.each([
    "https://127.0.0.1/",
    "https://127.1/",
    "https://0x7f000001/",
    "https://2130706433/",
    "https://0177.0.0.1/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://169.254.169.254/latest/meta-data/",
    "https://[fe80::1]/",
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://192.168.0.1/",
    "https://[fc00::1]/",
    "https://[fd12:3456::1]/",
    "https://100.64.0.1/",
    "https://224.0.0.1/",
    "https://[ff02::1]/",
    "https://240.0.0.1/",
    "https://255.255.255.255/",
    "https://0.0.0.0/",
    "https://0/",
    "https://[::]/",
    "https://[2002:7f00:1::]/",
    "https://[64:ff9b::a00:1]/",
    "https://internal.example.com/",
    "https://loopback.example.com/",
    "https://metadata.example.com/",
    "https://mixed.example.com/",
    "https://unknown.example.com/",
    "http://hooks.example.com/",
  ])("refuses the target %s with 422", async (url) => {
    const modpackId = await createModpack(service, owner);
    const response = await call("POST", `/modpacks/${modpackId}/webhooks`, owner, { url });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.code).toBe("UNPROCESSABLE_CONTENT");
    expect(await webhookCount(modpackId)).toBe(0);
  });

  it("accepts public targets of both families (checked at creation only: nothing is sent)", async () => {
    const modpackId = await createModpack(service, owner);
    for (const url of ["https://hooks.example.com/a", "https://v6.example.com/b", "https://93.184.215.14/c"]) {
      await createWebhook(modpackId, { url, events: ["mods.updated"] });
    }
    expect(await webhookCount(modpackId)).toBe(3);
  });

  it("refuses the same URL twice (409) and an eleventh webhook (422)", async () => {
    const modpackId = await createModpack(service, owner);
    await createWebhook(modpackId, { url: "https://hooks.example.com/0" });
    const twice = await call("POST", `/modpacks/${modpackId}/webhooks`, owner, { url: "https://hooks.example.com/0" });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe("CONFLICT");
    const rest = await Promise.all(
      Array.from({ length: 11 }, (_, index) =>
        call("POST", `/modpacks/${modpackId}/webhooks`, owner, { url: `https://hooks.example.com/${index + 1}` }),
      ),
    );
    expect(rest.map((response) => response.statusCode).sort()).toEqual([...Array(9).fill(201), 422, 422]);
    expect(await webhookCount(modpackId)).toBe(10);
    // Another modpack may use the same URL.
    const other = await createModpack(service, owner);
    await createWebhook(other, { url: "https://hooks.example.com/0" });
  });
});

describe("who may manage webhooks", () => {
  it("only the owner: members with every permission and strangers are refused everywhere", async () => {
    const modpackId = await createModpack(service, owner, { isPublic: true });
    const webhook = await createWebhook(modpackId, { url: "https://hooks.example.com/who" });
    const member = await signIn(service, { name: "Member" });
    await addMembers(service, modpackId, [
      { userId: member.userId, permission: ["read", "add-mod", "remove-mod", "import", "configure"] },
    ]);
    const stranger = await signIn(service, { name: "Stranger" });
    // An admin's role gives no way past a modpack's owner rule, here as everywhere.
    const admin = await signIn(service, { name: "Admin", role: "admin" });
    const base = `/modpacks/${modpackId}/webhooks`;
    const operations = [
      ["GET", base, undefined],
      ["POST", base, { url: "https://hooks.example.com/mine" }],
      ["PATCH", `${base}/${webhook.id}`, { isActive: false }],
      ["DELETE", `${base}/${webhook.id}`, undefined],
      ["POST", `${base}/${webhook.id}/rotate-secret`, undefined],
      ["POST", `${base}/${webhook.id}/test`, undefined],
      ["GET", `${base}/${webhook.id}/deliveries`, undefined],
    ] as const;
    for (const [method, url, body] of operations) {
      for (const who of [member, stranger, admin]) {
        const response = await call(method, url, who, body);
        expect(response.statusCode, `${method} ${url}`).toBe(403);
        expect(response.json()).toEqual({ error: { message: "Access denied", code: "FORBIDDEN" } });
      }
      const anonymous = await call(method, url, null, body);
      expect(anonymous.statusCode).toBe(401);
    }
    const unchanged = await call("GET", base, owner);
    expect(unchanged.json().data).toHaveLength(1);
    expect(unchanged.json().data[0].isActive).toBe(true);
  });

  it("answers 404 for a webhook of another modpack", async () => {
    const mine = await createModpack(service, owner);
    const other = await createModpack(service, owner);
    const webhook = await createWebhook(other, { url: "https://hooks.example.com/elsewhere" });
    for (const [method, suffix] of [
      ["PATCH", ""],
      ["DELETE", ""],
      ["POST", "/rotate-secret"],
      ["POST", "/test"],
      ["GET", "/deliveries"],
    ] as const) {
      const response = await call(method, `/modpacks/${mine}/webhooks/${webhook.id}${suffix}`, owner, {});
      expect(response.statusCode, `${method} ${suffix}`).toBe(404);
    }
  });
});

describe("changing, rotating, testing and deleting", () => {
  it("PATCH changes what it names; a disabled webhook takes no test; DELETE removes it", async () => {
    const modpackId = await createModpack(service, owner);
    const webhook = await createWebhook(modpackId, { url: "https://hooks.example.com/p", description: "x" });
    const base = `/modpacks/${modpackId}/webhooks/${webhook.id}`;
    const patched = await call("PATCH", base, owner, { events: ["mods.updated"], description: null });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ events: ["mods.updated"], description: null, url: webhook.url });
    for (const body of [{ url: "https://10.0.0.1/" }, { url: "http://hooks.example.com/p" }]) {
      expect((await call("PATCH", base, owner, body)).statusCode).toBe(422);
    }
    for (const body of [
      { events: [] },
      { isActive: "false" },
      { description: "d".repeat(201) },
      { events: ["nope"] },
    ]) {
      expect((await call("PATCH", base, owner, body)).statusCode).toBe(400);
    }
    await createWebhook(modpackId, { url: "https://hooks.example.com/q" });
    expect((await call("PATCH", base, owner, { url: "https://hooks.example.com/q" })).statusCode).toBe(409);

    const disabled = await call("PATCH", base, owner, { isActive: false });
    expect(disabled.json().isActive).toBe(false);
    expect((await call("POST", `${base}/test`, owner)).statusCode).toBe(409);

    const rotated = await call("POST", `${base}/rotate-secret`, owner);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(webhook.secret);

    expect((await call("DELETE", base, owner)).statusCode).toBe(200);
    expect((await call("DELETE", base, owner)).statusCode).toBe(404);
  });

  it("checks the address connected to at delivery: a name that now resolves to loopback is never connected to", async () => {
    const modpackId = await createModpack(service, owner);
    const path = "/rebind";
    const port = new URL(receiver.url(path)).port;
    const webhook = await createWebhook(modpackId, { url: `https://rebind.example.com:${port}${path}` });
    // The name moves to the receiver on loopback after the check at creation.
    names.set("rebind.example.com", ["127.0.0.1"]);
    const before = receiver.connections();
    const test = await call("POST", `/modpacks/${modpackId}/webhooks/${webhook.id}/test`, owner);
    expect(test.statusCode).toBe(202);
    const { deliveryId } = test.json();
    const log = await waitFor(
      "the refused attempt",
      async () => (await call("GET", `/modpacks/${modpackId}/webhooks/${webhook.id}/deliveries`, owner)).json().data,
      (data: { id: string; status: string }[]) =>
        data.some((entry) => entry.id === deliveryId && entry.status !== "pending"),
    );
    expect(log.find((entry: { id: string }) => entry.id === deliveryId)).toMatchObject({
      eventType: "webhook.test",
      attempt: 1,
      status: "failed",
      responseStatus: null,
      error: expect.stringMatching(/^Refused/),
    });
    expect(receiver.connections()).toBe(before);
    // Turned off so its retries stop.
    await call("PATCH", `/modpacks/${modpackId}/webhooks/${webhook.id}`, owner, { isActive: false });
  });
});

describe("on /trpc", () => {
  it("creates and lists with the same rules, statuses and bodies as REST", async () => {
    const modpackId = await createModpack(service, owner);
    const trpc = (procedure: string, who: SignedIn, input: object, method: "GET" | "POST" = "POST") =>
      service.app.inject({
        method,
        url:
          method === "GET"
            ? `/trpc/webhooks.${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`
            : `/trpc/webhooks.${procedure}`,
        headers: { ...who.headers, "content-type": "application/json" },
        ...(method === "POST" ? { payload: input } : {}),
      });
    const created = await trpc("create", owner, { id: modpackId, url: "https://hooks.example.com/trpc" });
    expect(created.statusCode, created.body).toBe(200);
    expect(created.json().result.data).toMatchObject({ modpackId, secret: expect.stringMatching(/^whsec_/) });
    const refused = await trpc("create", owner, { id: modpackId, url: "https://10.0.0.1/" });
    expect(refused.statusCode).toBe(422);
    const invalid = await trpc("create", owner, { id: modpackId, url: "https://hooks.example.com/x", events: [] });
    expect(invalid.statusCode).toBe(400);
    const stranger = await signIn(service, { name: "Stranger on tRPC" });
    const denied = await trpc("list", stranger, { id: modpackId }, "GET");
    expect(denied.statusCode).toBe(403);
    const listed = await trpc("list", owner, { id: modpackId }, "GET");
    expect(listed.json().result.data.data).toHaveLength(1);
    expect(listed.body).not.toContain("whsec_");
  });
});

describe("the OpenAPI document", () => {
  it("declares the operations' statuses and every event body in the webhooks section", async () => {
    const document = (await service.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const create = document.paths["/modpacks/{id}/webhooks"].post;
    expect(Object.keys(create.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "414",
      "415",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(document.paths["/modpacks/{id}/webhooks/{webhookId}/test"].post.responses)).toContain("202");
    expect(Object.keys(document.webhooks).sort()).toEqual([...webhookEventTypes].sort());
    for (const type of webhookEventTypes) {
      const { post } = document.webhooks[type];
      expect(post.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ]);
      const ref: string = post.requestBody.content["application/json"].schema.$ref;
      const schema = document.components.schemas[ref.replace("#/components/schemas/", "")];
      expect(schema.properties.type.const).toBe(type);
    }
  });
});
