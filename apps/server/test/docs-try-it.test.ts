import { mkdir } from "node:fs/promises";
import path from "node:path";
import { exampleId } from "@modpack/contract";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { ARTIFACTS, CHROMIUM_FLAGS, CHROMIUM_PATH, chromiumAvailable } from "./support/browser.js";
import { freePort } from "./support/net.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const hasChromium = chromiumAvailable("docs-try-it.test.ts");

// Chromium rendering the reference is most of its time, and the requests it sends reach the same
// routes whatever the database (each route's own tests run on both): one of CI's two runs (the
// embedded database's, which is also a bare `pnpm test`) is enough.
const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres) console.info("docs-try-it: runs on the embedded database only (DATABASE_URL is set)");

/** The workshop items and collection the document's examples name. */
const EXAMPLE_MOD = "3100000001";
const EXAMPLE_COLLECTION = "2875848298";

interface WriteOperation {
  method: string;
  path: string;
  tag: string;
  /** The path's parameters, as ids of resources that exist when the operation is sent. */
  ids?: () => Record<string, string>;
}

describe.skipIf(!hasChromium || onPostgres)("every write operation from the /docs Test Request panel", () => {
  let steam: FakeSteam;
  let service: TestService;
  let base: string;
  let admin: SignedIn;
  let friend: SignedIn;
  let browser: Browser;
  let context: BrowserContext;
  const ids: Record<string, string> = {};
  const pageErrors: string[] = [];

  const inject = async (method: "POST" | "GET", url: string, payload?: object) => {
    const response = await service.app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.json();
  };

  beforeAll(async () => {
    steam = await startFakeSteam();
    for (const id of [EXAMPLE_MOD, "3100000002", "3100000003"]) steam.items.set(id, fakeItem(id));
    steam.items.set(EXAMPLE_COLLECTION, fakeItem(EXAMPLE_COLLECTION, { fileType: 2, consumerAppId: 766 }));
    steam.collections.set(EXAMPLE_COLLECTION, ["3100000002", "3100000003"]);

    const port = await freePort();
    service = await startTestService({
      // The webhook examples' host resolves to loopback, and private targets are allowed, so the
      // test event's delivery stays on this machine.
      env: {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        WORKSHOP_API_URL: steam.url,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      },
      resolveHost: async (hostname) => {
        if (hostname === "hooks.example.com") return ["127.0.0.1"];
        throw new Error(`${hostname}: unknown`);
      },
    });
    base = await service.app.listen({ port, host: "127.0.0.1" });

    // The caller is an admin (so the admin operations are reachable); the member example names a seeded email.
    admin = await signIn(service, { name: "Docs Admin", role: "admin" });
    friend = await signIn(service, { name: "Baldspot", email: "baldspot@example.com" });
    const other = await signIn(service, { name: "Marina" });

    const modpack = await inject("POST", "/modpacks", { name: "Docs playground", isPublic: true });
    ids.modpack = modpack.id;
    const mod = await inject("POST", `/modpacks/${modpack.id}/mods`, { modAtribute: "3100000002" });
    ids.mod = mod.modId;
    const token = await inject("POST", "/auth/tokens", { name: "to revoke" });
    ids.token = token.id;
    ids.other = other.userId;
    ids.friend = friend.userId;
    // Adding a member by email stores an invitation (the same answer for any email), so the member
    // the change and removal examples act on is one already: added by id.
    await inject("POST", `/modpacks/${modpack.id}/members`, { userId: friend.userId, permission: ["read"] });
    const notification = await service.runtime.database.db
      .insertInto("notifications")
      .values({ userId: admin.userId, title: "Hello", content: "From the test", type: "info", metadata: "{}" })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.notification = notification.id;
    const webhook = await inject("POST", `/modpacks/${modpack.id}/webhooks`, {
      url: "https://hooks.example.com/setup",
    });
    ids.webhook = webhook.id;

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.addCookies([
      { name: SESSION_COOKIE, value: admin.token, url: base, httpOnly: true, sameSite: "Lax" },
    ]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await steam?.close();
  });

  // In an order where each one finds what it needs: the member exists before it is changed, the
  // modpack is archived before it is restored, and signing out comes last.
  const writes: WriteOperation[] = [
    { method: "POST", path: "/auth/tokens", tag: "sign-in" },
    { method: "DELETE", path: "/auth/tokens/{id}", tag: "sign-in", ids: () => ({ id: ids.token ?? "" }) },
    { method: "POST", path: "/modpacks", tag: "modpacks" },
    { method: "PATCH", path: "/modpacks/{id}", tag: "modpacks", ids: () => ({ id: ids.modpack ?? "" }) },
    { method: "POST", path: "/modpacks/{id}/duplicate", tag: "modpacks", ids: () => ({ id: ids.modpack ?? "" }) },
    { method: "POST", path: "/modpacks/{id}/mods", tag: "mods-of-a-modpack", ids: () => ({ id: ids.modpack ?? "" }) },
    {
      method: "POST",
      path: "/modpacks/{id}/server-starts",
      tag: "server-starts",
      ids: () => ({ id: ids.modpack ?? "" }),
    },
    {
      method: "POST",
      path: "/modpacks/{id}/revisions/{number}/restore",
      tag: "history",
      ids: () => ({ id: ids.modpack ?? "", number: "1" }),
    },
    {
      method: "DELETE",
      path: "/modpacks/{id}/mods/{modId}",
      tag: "mods-of-a-modpack",
      ids: () => ({ id: ids.modpack ?? "", modId: ids.mod ?? "" }),
    },
    { method: "POST", path: "/modpacks/{id}/members", tag: "members", ids: () => ({ id: ids.modpack ?? "" }) },
    // The invitation the example above made (its email is the withdraw example's).
    { method: "DELETE", path: "/modpacks/{id}/invitations", tag: "members", ids: () => ({ id: ids.modpack ?? "" }) },
    {
      method: "PATCH",
      path: "/modpacks/{id}/members/{userId}",
      tag: "members",
      ids: () => ({ id: ids.modpack ?? "", userId: ids.friend ?? "" }),
    },
    {
      method: "DELETE",
      path: "/modpacks/{id}/members/{userId}",
      tag: "members",
      ids: () => ({ id: ids.modpack ?? "", userId: ids.friend ?? "" }),
    },
    { method: "POST", path: "/modpacks/{id}/import", tag: "import", ids: () => ({ id: ids.modpack ?? "" }) },
    {
      method: "PUT",
      path: "/modpacks/{id}/export-configuration",
      tag: "server-files",
      ids: () => ({ id: ids.modpack ?? "" }),
    },
    { method: "POST", path: "/modpacks/{id}/server-file", tag: "server-files", ids: () => ({ id: ids.modpack ?? "" }) },
    { method: "POST", path: "/modpacks/{id}/webhooks", tag: "webhooks", ids: () => ({ id: ids.modpack ?? "" }) },
    ...["/test", "/rotate-secret"].map((action) => ({
      method: "POST",
      path: `/modpacks/{id}/webhooks/{webhookId}${action}`,
      tag: "webhooks",
      ids: () => ({ id: ids.modpack ?? "", webhookId: ids.webhook ?? "" }),
    })),
    ...["PATCH", "DELETE"].map((method) => ({
      method,
      path: "/modpacks/{id}/webhooks/{webhookId}",
      tag: "webhooks",
      ids: () => ({ id: ids.modpack ?? "", webhookId: ids.webhook ?? "" }),
    })),
    {
      method: "POST",
      path: "/modpacks/{id}/server-file/patch",
      tag: "server-files",
      ids: () => ({ id: ids.modpack ?? "" }),
    },
    {
      method: "PATCH",
      path: "/notifications/{id}/read",
      tag: "notifications",
      ids: () => ({ id: ids.notification ?? "" }),
    },
    { method: "PATCH", path: "/notifications/read-all", tag: "notifications" },
    { method: "POST", path: "/mods", tag: "catalogue" },
    { method: "POST", path: "/mods/{id}/refresh", tag: "catalogue", ids: () => ({ id: ids.mod ?? "" }) },
    { method: "POST", path: "/mods/update-all", tag: "catalogue" },
    { method: "PATCH", path: "/admin/users/{id}", tag: "admin", ids: () => ({ id: ids.other ?? "" }) },
    { method: "PATCH", path: "/admin/modpacks/{id}", tag: "admin", ids: () => ({ id: ids.modpack ?? "" }) },
    { method: "DELETE", path: "/modpacks/{id}", tag: "modpacks", ids: () => ({ id: ids.modpack ?? "" }) },
    { method: "POST", path: "/modpacks/{id}/restore", tag: "modpacks", ids: () => ({ id: ids.modpack ?? "" }) },
    { method: "POST", path: "/auth/sign-out", tag: "sign-in" },
  ];

  it("lists every write operation of the document here", async () => {
    const document = (await service.app.inject({ method: "GET", url: "/openapi.json" })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.keys(item)
        .filter((method) => ["post", "put", "patch", "delete"].includes(method))
        .map((method) => `${method.toUpperCase()} ${route}`),
    );
    expect(writes.map((write) => `${write.method} ${write.path}`).sort()).toEqual(documented.sort());
  });

  // A page serves a few operations, each reached by its section's fragment in the address (the same
  // document, scrolled), then the next one starts fresh: Scalar's page keeps every section it has rendered, so one page driven through every
  // operation grows slower with each (to several times a fresh load's cost by the last), while a
  // fresh load costs the same every time and several times an operation on a page already loaded.
  // Each operation is a test of its own, with its own time limit, named in a failure.
  describe("sends each one's prefilled example as-is, and each succeeds", () => {
    beforeAll(async () => {
      await mkdir(ARTIFACTS, { recursive: true });
    });

    // Each operation acts on what the ones before it made: after a failure, the rest are skipped
    // rather than failing for it.
    let failed: string | undefined;
    const OPERATIONS_PER_PAGE = 8;
    let loaded: Page | undefined;
    let served = 0;
    let current = "";
    /** The page the next operation is sent from: the current one, or a fresh one after OPERATIONS_PER_PAGE. */
    const nextPage = async (): Promise<Page> => {
      if (loaded && served < OPERATIONS_PER_PAGE) {
        served += 1;
        return loaded;
      }
      await loaded?.close();
      const page = await context.newPage();
      loaded = page;
      // Five steps at most, each within this bound, so a stuck step fails within the test's own limit.
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (error) => pageErrors.push(`${current}: ${String(error)}`));
      served = 1;
      return page;
    };

    for (const write of writes) {
      it(`${write.method} ${write.path}`, async (test) => {
        if (failed) test.skip(`${failed} failed`);
        current = `${write.method} ${write.path}`;
        const page = await nextPage();
        try {
          const real = write.ids?.() ?? {};
          // Path parameters carry the document's examples: an id, or a revision's number.
          const examplePath = write.path.replace(/\{(\w+)\}/g, (_, name: string) =>
            name === "number" ? "3" : exampleId,
          );
          const realPath = write.path.replace(/\{(\w+)\}/g, (_, name: string) => real[name] ?? "");
          // The request leaves the browser exactly as Scalar built it, addressed to resources that exist.
          // (Its query string, where the operation has one, stays as Scalar wrote it.)
          await page.unrouteAll();
          await page.route(
            (url) => url.origin === base && url.pathname === examplePath,
            (route) => route.continue({ url: `${base}${realPath}${new URL(route.request().url()).search}` }),
          );

          // On a page already loaded, only the fragment changes: the same document, scrolled to the section.
          await page.goto(`${base}/docs/#tag/${write.tag}/${write.method}${write.path}`);
          const open = page.getByRole("button", { name: `Test Request (${write.method.toLowerCase()} ${write.path})` });
          await open.first().click();
          const send = page.getByRole("button", {
            name: new RegExp(`Send ${write.method.toLowerCase()} request to`, "i"),
          });
          await send.waitFor({ state: "visible" });
          const answered = page.waitForResponse(
            (response) => response.request().method() === write.method && new URL(response.url()).pathname === realPath,
          );
          await send.click();
          const response = await answered;
          const body = await response.text();
          const where = `${write.method} ${write.path}`;
          expect(response.status(), `${where} answered ${response.status()}: ${body}`).toBeGreaterThanOrEqual(200);
          expect(response.status(), `${where} answered ${response.status()}: ${body}`).toBeLessThan(300);
          if (write.method === "POST" && write.path === "/modpacks") {
            await page.screenshot({ path: path.join(ARTIFACTS, "docs-create-modpack.png") });
          }
          // The panel closes as a reader closes it, before the next operation opens its own.
          await page.keyboard.press("Escape");
          await send.waitFor({ state: "hidden" });
        } catch (error) {
          failed = current;
          throw error;
        }
      }, 120_000);
    }

    it("raises no error on any page", () => {
      expect(pageErrors).toEqual([]);
    });
  });
});
