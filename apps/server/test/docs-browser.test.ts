import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { ARTIFACTS, CHROMIUM_FLAGS, CHROMIUM_PATH, chromiumAvailable } from "./support/browser.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const hasChromium = chromiumAvailable("docs-browser.test.ts");

/** Operation groups (OpenAPI tags) the sidebar must list, with their anchors. */
const TAGS = [
  "Sign-in",
  "Modpacks",
  "Mods of a modpack",
  "Members",
  "Import",
  "Server files",
  "Notifications",
  "Webhooks",
  "Catalogue",
  "Admin",
  "Health",
];
/** Operation summaries shown once their group is opened. */
const OPERATIONS: Record<string, string[]> = {
  Modpacks: ["List your modpacks", "Create a modpack", "List public modpacks"],
  Import: ["Import a workshop collection", "The latest import's status"],
  "Server files": ["Generate a servertest.ini", "Save the export configuration", "Download a server file"],
  "Sign-in": ["Create an API token"],
  Webhooks: ["Add a webhook", "Send a test event", "A webhook's delivery log"],
};

const tagAnchor = (tag: string) => `#tag/${tag.toLowerCase().replaceAll(" ", "-")}`;

/** A port free right now, so the service's PUBLIC_URL (the OpenAPI `servers` entry "Test Request" calls) is its own address. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

// Chromium rendering the reference is most of its time, and the page reads the same document
// whatever the database: one of CI's two runs (the embedded database's, which is also a bare
// `pnpm test`) is enough.
const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres) console.info("docs-browser: runs on the embedded database only (DATABASE_URL is set)");

describe.skipIf(!hasChromium || onPostgres)("the API reference at /docs in headless Chromium", () => {
  let service: TestService;
  let base: string;
  let owner: SignedIn;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Requests the page tried to send anywhere but the service: each is aborted and must not happen. */
  const external: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    service = await startTestService({ env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    base = await service.app.listen({ port, host: "127.0.0.1" });
    expect(base).toBe(`http://127.0.0.1:${port}`);

    owner = await signIn(service, { name: "Docs Reader" });
    const created = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: owner.headers,
      payload: { name: "Seeded from the docs test", description: "Public, for the browser", isPublic: true },
    });
    expect(created.statusCode, created.body).toBe(201);

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${base}/`) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      external.push(url);
      return route.abort("internetdisconnected");
    });
    await context.addCookies([
      { name: SESSION_COOKIE, value: owner.token, url: base, httpOnly: true, sameSite: "Lax" },
    ]);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (error) => pageErrors.push(String(error)));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("serves a page whose script is the plugin's own bundle, not a CDN's", async () => {
    const html = await service.app.inject({ method: "GET", url: "/docs/" });
    expect(html.statusCode).toBe(200);
    const references = [...html.body.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(references).toContain("js/scalar.js");
    expect(references.filter((reference) => /^(?:https?:)?\/\//.test(reference ?? ""))).toEqual([]);
    const script = await service.app.inject({ method: "GET", url: "/docs/js/scalar.js" });
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toMatch(/javascript/);
  });

  it("renders the operation groups and operations, and sends GET /modpacks/my from Test Request", async () => {
    await page.goto(`${base}/docs/`);
    await page.getByRole("heading", { name: "Modpack Collection Service" }).first().waitFor();

    for (const tag of TAGS) {
      const link = page.locator(`a[href="${tagAnchor(tag)}"]`);
      await link.waitFor({ state: "visible" });
      expect((await link.textContent())?.trim()).toBe(tag);
    }
    // The sidebar lists the groups in the order of a user's journey.
    const anchors = await page
      .locator('a[href^="#tag/"]')
      .evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""));
    const groups = anchors.filter((href) => /^#tag\/[^/]+$/.test(href));
    expect(groups.filter((href) => TAGS.map(tagAnchor).includes(href))).toEqual(TAGS.map(tagAnchor));
    // Scalar's extras that are not this API's: no AI chat, no MCP, no developer tools (deploy, share).
    for (const extra of [/Ask AI/i, /MCP/, /Developer Tools/i, /Deploy/i, /Share/i]) {
      expect(await page.getByRole("button", { name: extra }).count(), String(extra)).toBe(0);
    }

    // The whole page with the first group's operations rendered: Scalar renders a group once it is
    // scrolled to, and the introduction (with its permission table) fills the first screen.
    await page.locator(`a[href="${tagAnchor(TAGS[0] ?? "")}"]`).click();
    await page.getByRole("heading", { name: "The current session and user" }).first().waitFor({ state: "visible" });
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "docs.png"), fullPage: true });

    for (const [tag, summaries] of Object.entries(OPERATIONS)) {
      await page.locator(`a[href="${tagAnchor(tag)}"]`).click();
      for (const summary of summaries) {
        await page
          .locator(`a[href^="${tagAnchor(tag)}/"]`, { hasText: summary })
          .first()
          .waitFor({ state: "visible" });
      }
    }

    // The main column renders the opened operations too.
    await page.locator(`a[href="${tagAnchor("Modpacks")}/GET/modpacks/my"]`).click();
    await page.getByRole("heading", { name: "List your modpacks" }).first().waitFor({ state: "visible" });

    await page.screenshot({ path: path.join(ARTIFACTS, "docs-modpacks.png") });

    // "Test Request" opens Scalar's request client on the operation; "Send" calls the server of
    // the OpenAPI document (PUBLIC_URL, this very origin), so the browser's session cookie goes along.
    await page.getByRole("button", { name: "Test Request (get /modpacks/my)" }).click();
    const send = page.getByRole("button", { name: /Send get request to .*\/modpacks\/my/ });
    await send.waitFor({ state: "visible" });
    const answered = page.waitForResponse(
      (response) => new URL(response.url()).pathname === "/modpacks/my" && response.request().method() === "GET",
    );
    await send.click();
    const response = await answered;
    expect(response.status()).toBe(200);
    const body = (await response.json()) as { data: Array<{ name: string; owner: string }> };
    expect(body.data).toEqual([expect.objectContaining({ name: "Seeded from the docs test", owner: owner.userId })]);
    // ...and the request client shows it.
    await page.getByText("200 OK").first().waitFor({ state: "visible" });
    await page.getByText('"Seeded from the docs test"').first().waitFor({ state: "visible" });
    await page.screenshot({ path: path.join(ARTIFACTS, "docs-test-request.png") });

    expect(external).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
