/**
 * examples/web end to end in headless Chromium (Debian's `chromium`, driven by playwright-core):
 * the React app on TanStack Query served by Vite on its own origin, the real service on another
 * (listed in ORIGIN_ALLOWED), the local Steam Web API stand-in (which also serves the workshop
 * preview images) and a local OAuth provider (which also serves the user's picture). A server
 * owner's day: the sign-in page, signing in, a refused name worded as the service words it, a new
 * modpack, mods added by workshop URL and by id (with the mod they require), the check's findings
 * beside the mods, the load order changed with the buttons and by dragging, a server file
 * announced live and downloaded, the pack's server page (its current file as the service answers
 * it, the start command, and a server token proven to change nothing), its webhooks (a Discord one
 * shown masked; one added, sent a test that a receiver on loopback verifies, disabled and deleted),
 * and everyone's public modpacks read to the end by scrolling. Each page is photographed on a
 * laptop and on a phone (test-artifacts/web-*.png). Any request to an
 * origin other than the app's, the service's, the identity provider's and the stand-in's is
 * aborted and fails the test. Skipped, with a printed reason, where Chromium is not installed;
 * runs on the embedded database only (the browser is the heavy part, not the database).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify, stripVTControlCharacters } from "node:util";
import { fromErrorBody } from "@modpack/client";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../dev/webhook-receiver.js";
import { type FakeProvider, startFakeProvider } from "./fixtures/oauth-provider.js";
import { type FakeSteam, fakeMod, heldCalls, startFakeSteam } from "./fixtures/steam-api.js";
import { ARTIFACTS, CHROMIUM_FLAGS, CHROMIUM_PATH, chromiumAvailable } from "./support/browser.js";
import { createModpack } from "./support/modpacks.js";
import { freePort } from "./support/net.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";
import { waitFor } from "./support/wait.js";

const hasChromium = chromiumAvailable("web-example.test.ts");
const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres) console.info("web-example: runs on the embedded database only (DATABASE_URL is set)");

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(serverRoot, "../..");
const webRoot = path.join(repoRoot, "examples/web");

/** Runs a command to its end; rejects with its output when it fails. */
function runToEnd(command: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${command} failed:\n${output}`))));
  });
}

/** Starts Vite's dev server for the example; resolves once it says where it listens. */
function startVite(port: number, apiUrl: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(webRoot, "node_modules/vite/bin/vite.js"), "--host", "127.0.0.1", "--port", String(port)],
      {
        cwd: webRoot,
        // Vite bolds the port when colour is forced (turbo and CI runners force it): ask for none,
        // and read the output without escape sequences either way.
        env: { ...process.env, VITE_API_URL: apiUrl, FORCE_COLOR: "0", NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (stripVTControlCharacters(output).includes(`127.0.0.1:${port}`)) resolve(child);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`vite exited with ${code}:\n${output}`)));
  });
}

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Another owner's public modpacks: three pages of twelve, with names a list must show as given. */
const publicNames = [
  ...Array.from({ length: 26 }, (_, index) => `Public pack ${String(index + 1).padStart(2, "0")}`),
  "Überleben in Knox — Ünïcödé",
  "<script>alert('pack')</script>",
  "مودباك عربي للنجاة",
  "🧟 Zombie Season 🚗",
  "  Spaces around  ",
  "x".repeat(50),
];

/** The workshop items of the day: one requires another and is tagged for Build 41 only. */
const OVERHAUL = { id: "3100000001", title: "Vehicle Overhaul Pack" };
const CORE = { id: "3100000002", title: "Vehicle Core Library" };
const SORTING = { id: "3100000003", title: `Better Sorting <b>[B42]</b> — "fast" & ✓` };
const MISSING_ID = "3199999999";
/** A collection of more mods than one page of the list holds (100). */
const BULK_COLLECTION = "3200000000";
const BULK_SIZE = 105;
const workshopIdOf = new Map([OVERHAUL, CORE, SORTING].map((item) => [item.title, item.id]));

const workshopUrl = (id: string) => `https://steamcommunity.com/sharedfiles/filedetails/?id=${id}`;

describe.skipIf(!hasChromium || onPostgres)("examples/web in headless Chromium against the real service", () => {
  let steam: FakeSteam;
  let identity: FakeProvider;
  let receiver: WebhookReceiver;
  let service: TestService;
  let vite: ChildProcess | undefined;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let webUrl: string;
  let apiUrl: string;
  let modpackId = "";
  /** A public modpack of another owner: its webhooks are not this user's to see. */
  let othersModpackId = "";
  const pageErrors: string[] = [];
  const offOrigin: string[] = [];

  /** The page as it is now, on a laptop and on a phone; on the phone nothing may be wider than the screen. */
  async function photograph(name: string): Promise<void> {
    // From the top: a whole-page picture of a scrolled page draws the sticky bar where it was.
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: path.join(ARTIFACTS, `web-${name}.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    try {
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
      expect(overflow, `${name}: wider than a phone's screen`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `web-${name}-phone.png`), fullPage: true });
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }

  /** The mods' names in the load order on screen. */
  function loadOrder(): Promise<string[]> {
    return page
      .getByRole("list", { name: "Load order" })
      .locator(":scope > li")
      .evaluateAll((items) => items.map((item) => item.getAttribute("aria-label") ?? ""));
  }

  /**
   * Waits until the list shows `expected` and is done saving: while a save is under way the mods
   * cannot be dragged (nor moved), so the next step would not take.
   */
  async function waitForOrder(expected: string[]): Promise<string[]> {
    const order = await waitFor(
      `the load order ${JSON.stringify(expected)}`,
      loadOrder,
      (shown) => shown.length === expected.length && shown.every((name, index) => name === expected[index]),
    );
    await waitFor(
      "the load order saved",
      () => page.getByRole("list", { name: "Load order" }).locator(':scope > li[draggable="false"]').count(),
      (saving) => saving === 0,
    );
    return order;
  }

  /** Waits until the load order the service has saved is `expected` (mod names). */
  async function waitForSaved(expected: string[], id = modpackId): Promise<void> {
    const nameOf = await modNames(id);
    await waitFor(
      `the saved load order ${JSON.stringify(expected)}`,
      async () => {
        const saved = (await asBrowser("GET", `/modpacks/${id}/export-configuration`)).body as {
          modsOrder: string[];
        };
        return saved.modsOrder.map((id) => nameOf.get(id));
      },
      (saved) => JSON.stringify(saved) === JSON.stringify(expected),
    );
  }

  /** The same call over REST with the browser's session: what the service answers it. */
  async function asBrowser(method: "GET" | "POST" | "DELETE", url: string, payload?: object) {
    const cookies = await context.cookies(apiUrl);
    const response = await service.app.inject({
      method,
      url,
      headers: { cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ") },
      ...(payload ? { payload } : {}),
    });
    return { status: response.statusCode, body: response.json() as unknown };
  }

  /** The mods of the modpack by id, as the service lists them. */
  async function modNames(id = modpackId): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    let cursor: string | null | undefined;
    do {
      const page = (
        await asBrowser("GET", `/modpacks/${id}/mods?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
      ).body as { data: { id: string; name: string }[]; pagination: { nextCursor?: string | null } };
      for (const mod of page.data) names.set(mod.id, mod.name);
      cursor = page.pagination.nextCursor;
    } while (cursor);
    return names;
  }

  /** Waits until every finding the service's check has about a mod shows beside that mod; answers their codes. */
  async function findingsBesideTheirMods(version = "42x"): Promise<string[]> {
    const check = (await asBrowser("GET", `/modpacks/${modpackId}/check?version=${version}`)).body as {
      findings: { modId?: string; message: string; code: string }[];
    };
    const nameOf = await modNames();
    for (const finding of check.findings.filter((each) => each.modId)) {
      const row = page.getByRole("listitem", { name: nameOf.get(finding.modId ?? "") });
      await row.getByText(finding.message).waitFor();
    }
    return check.findings.map((finding) => finding.code);
  }

  beforeAll(async () => {
    // The app imports the built client, as an app installing the package would.
    const pnpmPath = process.env.npm_execpath;
    await (pnpmPath && /pnpm/.test(path.basename(pnpmPath))
      ? runToEnd(
          process.execPath,
          [pnpmPath, "exec", "turbo", "run", "build", "--filter=@modpack/client...", "--output-logs=errors-only"],
          repoRoot,
        )
      : runToEnd(
          "pnpm",
          ["exec", "turbo", "run", "build", "--filter=@modpack/client...", "--output-logs=errors-only"],
          repoRoot,
        ));

    steam = await startFakeSteam();
    // Their previews are served by the stand-in.
    for (const item of [
      fakeMod(OVERHAUL.id, { title: OVERHAUL.title, requires: [CORE.id], builds: ["41"] }),
      fakeMod(CORE.id, { title: CORE.title, builds: ["41", "42"] }),
      fakeMod(SORTING.id, { title: SORTING.title, builds: ["42"] }),
    ]) {
      steam.items.set(item.workshopId, item);
    }

    receiver = await startWebhookReceiver();
    identity = await startFakeProvider();
    identity.profile = { ...identity.profile, name: "Web Person", email: "web.person@example.com" };

    const [apiPort, webPort] = [await freePort(), await freePort()];
    webUrl = `http://127.0.0.1:${webPort}`;
    apiUrl = `http://127.0.0.1:${apiPort}`;
    service = await startTestService({
      // With a key the service reads what an item requires, and adds it along.
      env: {
        ...identity.env,
        PUBLIC_URL: apiUrl,
        ORIGIN_ALLOWED: webUrl,
        WORKSHOP_API_URL: steam.url,
        STEAM_API_KEY: "stand-in-key",
        // The webhook receiver is on loopback.
        WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      },
    });
    await service.app.listen({ port: apiPort, host: "127.0.0.1" });
    const owner = await signIn(service, { name: "Another Owner" });
    for (const name of publicNames) othersModpackId = await createModpack(service, owner, { name, isPublic: true });
    vite = await startVite(webPort, apiUrl);

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
    context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    // The app, the service, the identity provider and the stand-in (Steam's image host in the
    // test) are all it may reach.
    const allowed = new Set([webUrl, apiUrl, identity.url, steam.url]);
    await context.route(
      (url) => !allowed.has(url.origin),
      (route) => {
        offOrigin.push(route.request().url());
        return route.abort("blockedbyclient");
      },
    );
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    await mkdir(ARTIFACTS, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    vite?.kill("SIGTERM");
    await service?.stop();
    await steam?.close();
    await identity?.close();
    await receiver?.close();
  });

  it("shows a visitor the sign-in page, and the public modpacks without signing in", async () => {
    await page.goto(`${webUrl}/`);
    await page.getByRole("heading", { name: "Your Project Zomboid modpacks, in one place" }).waitFor();
    await page.getByText("You are not signed in.").waitFor();
    await photograph("sign-in");

    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Public modpacks" }).click();
    await page.getByRole("list", { name: "Public modpacks" }).getByRole("listitem").first().waitFor();
    expect(await page.getByRole("link", { name: "Sign in" }).count()).toBe(1);
  }, 120_000);

  it("signs in through the identity provider and starts with no modpacks", async () => {
    await page.getByRole("link", { name: "My modpacks" }).click();
    // The OAuth provider approves at once and sends the browser back through the service.
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL(`${webUrl}/`).catch(async (error) => {
      throw new Error(`${error}\nat ${page.url()}:\n${(await page.content()).slice(0, 1500)}`);
    });
    await page.getByText("Signed in as").waitFor();
    expect(await page.getByText("web.person@example.com").count()).toBe(1);
    const avatar = page.getByRole("banner").locator("img.avatar");
    expect(await avatar.getAttribute("src")).toBe(`${identity.url}/avatar.svg`);
    await waitFor(
      "the avatar loaded",
      () => avatar.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
      (width) => width > 0,
    );
    await page.getByText("No modpacks yet").waitFor();
    await page.getByRole("region", { name: "Notifications" }).getByText("live", { exact: true }).waitFor();
    await photograph("my-modpacks-empty");
  }, 60_000);

  it("shows a refused name as the service words it, and creates nothing", async () => {
    for (const name of ["ab", "   ", "y".repeat(51)]) {
      await page.getByLabel("Name").fill(name);
      await page.getByRole("button", { name: "Create modpack" }).click();
      const answer = await asBrowser("POST", "/modpacks", { name, isPublic: false });
      expect(answer.status).toBe(400);
      const { message, issues } = fromErrorBody(answer.status, answer.body);
      const alert = page.getByRole("alert");
      await alert.getByText(message, { exact: false }).first().waitFor();
      expect(issues?.length).toBeGreaterThan(0);
      for (const issue of issues ?? []) await alert.getByText(issue.message).first().waitFor();
    }
    await photograph("my-modpacks-error");
    expect(await page.getByText("No modpacks yet").count()).toBe(1);
    const mine = await asBrowser("GET", "/modpacks/my");
    expect((mine.body as { data: unknown[] }).data).toEqual([]);
  }, 60_000);

  it("creates a modpack and opens it", async () => {
    const name = `Brita's "Roadtrip" <b>42</b>`;
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Description").fill("Guns & cars, <i>not</i> HTML.");
    await page.getByRole("button", { name: "Create modpack" }).click();
    await page.waitForURL(/\/modpacks\/[0-9a-f-]{36}$/);
    modpackId = page.url().split("/").pop() ?? "";
    await page.getByRole("heading", { level: 1, name }).waitFor();
    await page.getByText("Guns & cars, <i>not</i> HTML.").waitFor();
    await page.getByText("No mods yet").waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
  }, 60_000);

  it("adds mods by workshop URL and by id, with the mods they require and the check's findings beside them", async () => {
    const field = page.getByLabel("Workshop URL or id");
    await field.fill(`  ${workshopUrl(OVERHAUL.id)}  `);
    await page.getByRole("button", { name: "Add mod" }).click();
    await page.getByRole("status").getByText(`Also added 1 required mod: ${CORE.id}.`).waitFor();
    await page.getByRole("listitem", { name: CORE.title }).waitFor();
    // While the workshop is slow to answer, the form says it is adding and takes no second press.
    steam.holdAfter(0);
    await field.fill(SORTING.id);
    await page.getByRole("button", { name: "Add mod" }).click();
    const adding = page.getByRole("button", { name: "Adding…" });
    await adding.waitFor();
    await heldCalls(steam);
    expect(await adding.isDisabled()).toBe(true);
    steam.release();
    await page.getByRole("listitem", { name: SORTING.title }).waitFor();
    expect(await field.inputValue()).toBe("");

    // An item the workshop does not have: the service's words, and nothing added.
    await field.fill(MISSING_ID);
    await page.getByRole("button", { name: "Add mod" }).click();
    const refused = await asBrowser("POST", `/modpacks/${modpackId}/mods`, { modAtribute: MISSING_ID });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await page.getByRole("alert").getByText(fromErrorBody(refused.status, refused.body).message).waitFor();
    expect(await loadOrder()).toHaveLength(3);

    expect(await findingsBesideTheirMods()).toContain("wrong-build");

    // The previews come from the stand-in, and load.
    const previews = page.getByRole("list", { name: "Load order" }).locator("img");
    expect(await previews.evaluateAll((images) => images.map((image) => image.getAttribute("src")))).toEqual(
      expect.arrayContaining([OVERHAUL.id, CORE.id, SORTING.id].map((id) => steam.previewUrl(id))),
    );
    await waitFor(
      "three loaded previews",
      () =>
        previews.evaluateAll(
          (images) => images.filter((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0).length,
        ),
      (loaded) => loaded === 3,
    );
    await photograph("modpack");
  }, 90_000);

  it("changes the load order with the buttons and by dragging, keeps it, and applies the suggested order", async () => {
    const start = await loadOrder();
    expect([...start].sort()).toEqual([CORE.title, OVERHAUL.title, SORTING.title].sort());

    const [first, second, third] = start as [string, string, string];
    await page.getByRole("button", { name: `Move ${third} up` }).click();
    await waitForOrder([first, third, second]);

    await page.getByRole("listitem", { name: first }).dragTo(page.getByRole("listitem", { name: second }));
    await waitForOrder([third, second, first]);

    // The list moves before the service has saved it: reload once it has.
    await waitForSaved([third, second, first]);
    await page.reload();
    const kept = await waitForOrder([third, second, first]);

    // The pack loads the overhaul before the library it requires: the check says so beside it, and
    // its suggested order fixes it.
    let order = kept;
    while (order.indexOf(OVERHAUL.title) > order.indexOf(CORE.title)) {
      const index = order.indexOf(OVERHAUL.title);
      await page.getByRole("button", { name: `Move ${OVERHAUL.title} up` }).click();
      const expected = [...order];
      expected.splice(index, 1);
      expected.splice(index - 1, 0, OVERHAUL.title);
      order = await waitForOrder(expected);
    }
    expect(await findingsBesideTheirMods()).toContain("requirement-order");
    await photograph("modpack-order");
    await page.getByRole("button", { name: "Apply the suggested load order" }).click();
    await waitFor(
      "the library loading before the overhaul",
      loadOrder,
      (now) => now.indexOf(CORE.title) < now.indexOf(OVERHAUL.title),
    );
    await page.getByRole("button", { name: "Apply the suggested load order" }).waitFor({ state: "detached" });
    await waitForSaved(await loadOrder());
  }, 90_000);

  it("generates the server file, announces it live and downloads it", async () => {
    const order = await loadOrder();
    await page.getByRole("button", { name: "Generate server file (42x)" }).click();
    const notifications = page.getByRole("region", { name: "Notifications" });
    await notifications.getByText("Server file ready").waitFor();
    await page.getByRole("link", { name: /^Download .+-42x\.ini$/ }).waitFor();
    await photograph("server-file");

    const downloading = page.waitForEvent("download");
    await notifications.getByRole("link", { name: "Download" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^[a-z0-9-]+-42x\.ini$/);
    const file = await readFile(await download.path(), "utf8");
    expect(file).toContain(`WorkshopItems=${order.map((name) => workshopIdOf.get(name)).join(";")}`);

    // Read again after a reload, the notifications are still there, and can be marked read.
    await page.reload();
    await notifications.getByText("Server file ready").waitFor();
    const unread = (await asBrowser("GET", "/notifications?unreadOnly=true")).body as { unreadCount: number };
    expect(unread.unreadCount).toBeGreaterThan(0);
    await notifications.getByRole("button", { name: `Mark ${unread.unreadCount} read` }).click();
    await notifications.getByRole("button", { name: /^Mark \d+ read$/ }).waitFor({ state: "detached" });
    expect(
      ((await asBrowser("GET", "/notifications?unreadOnly=true")).body as { unreadCount: number }).unreadCount,
    ).toBe(0);
  }, 90_000);

  it("checks for the version chosen, and removes a mod unless another requires it", async () => {
    await page.getByLabel("Game version").selectOption("41x");
    const check41 = (await asBrowser("GET", `/modpacks/${modpackId}/check?version=41x`)).body as { ok: boolean };
    expect(check41.ok).toBe(true);
    await page.getByRole("status", { name: "Check" }).getByText("Build 41").waitFor();
    // Tagged for Build 41, the overhaul is fine there; the Build 42 mod is not.
    expect(await findingsBesideTheirMods("41x")).toContain("wrong-build");
    await waitFor(
      "no finding beside the overhaul",
      () => page.getByRole("listitem", { name: OVERHAUL.title }).getByRole("listitem").count(),
      (findings) => findings === 0,
    );
    await page.getByRole("button", { name: "Generate server file (41x)" }).waitFor();

    await page.getByRole("button", { name: `Remove ${CORE.title}` }).click();
    const alert = page.getByRole("alert");
    await alert.getByText("Could not remove the mod.").waitFor();
    const nameOf = await modNames();
    const coreId = [...nameOf].find(([, name]) => name === CORE.title)?.[0] ?? "";
    const refused = await asBrowser("DELETE", `/modpacks/${modpackId}/mods/${coreId}`);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await alert.getByText(fromErrorBody(refused.status, refused.body).message).waitFor();
    expect(await loadOrder()).toHaveLength(3);

    await page.getByRole("button", { name: `Remove ${SORTING.title}` }).click();
    await page.getByRole("listitem", { name: SORTING.title }).waitFor({ state: "detached" });
    expect([...(await modNames()).values()].sort()).toEqual([CORE.title, OVERHAUL.title].sort());
    expect(await page.getByRole("alert").count()).toBe(0);
  }, 60_000);

  it("shows the pack's current server file and start command, and creates a server token for it", async () => {
    await page.getByRole("link", { name: "Server", exact: true }).click();
    await page.waitForURL(`${webUrl}/modpacks/${modpackId}/server`);
    await page.getByRole("heading", { level: 1, name: "Server" }).waitFor();
    expect(await page.title()).toBe("Server · Modpacks");

    // The file on screen is the bytes the service answers over HTTP, in each form, with its headers.
    const cookie = (await context.cookies(apiUrl)).map((each) => `${each.name}=${each.value}`).join("; ");
    const served = async (format: string, headers: Record<string, string> = { cookie }) => {
      const response = await fetch(`${apiUrl}/modpacks/${modpackId}/server-file?version=42x&format=${format}`, {
        headers,
      });
      return { status: response.status, headers: response.headers, text: await response.text() };
    };
    const shown = (label: string) => page.getByRole("figure", { name: label }).locator("pre");
    const ini = await served("ini");
    expect(ini.status).toBe(200);
    await waitFor(
      "the current file",
      () => shown("Server file").textContent(),
      (text) => text === ini.text,
    );
    const headers = page.locator(".file-headers");
    await headers.getByText(`Modpack-Check-Errors: ${ini.headers.get("modpack-check-errors")}`).waitFor();
    await headers.getByText(`ETag: ${ini.headers.get("etag")}`).waitFor();
    // The overhaul is tagged for Build 41 only: the json form's findings, worded as the check words them.
    const { findings } = JSON.parse((await served("json")).text) as { findings: { message: string }[] };
    expect(findings.length).toBeGreaterThan(0);
    const findingList = page.getByRole("list", { name: "Findings" });
    for (const finding of findings) await findingList.getByText(finding.message).waitFor();
    expect(await findingList.getByRole("listitem").count()).toBe(findings.length);
    await page.getByLabel("Environment (--env-file)").check();
    const env = await served("env");
    await waitFor(
      "the env form",
      () => shown("Environment file").textContent(),
      (text) => text === env.text,
    );
    // The env form for one server image is the service's answer for that image.
    await page.getByLabel("Server image").selectOption("danixu");
    const forDanixu = await served("env&image=danixu");
    expect(forDanixu.text).toContain("MOD_IDS=");
    await waitFor(
      "the env form for Danixu's image",
      () => shown("Environment file").textContent(),
      (text) => text === forDanixu.text,
    );
    await page.getByLabel("Server image").selectOption("");
    await page.getByLabel("servertest.ini").check();

    // The start script is the guide's, word for word; the command carries the service and the pack.
    const guide = await readFile(path.join(repoRoot, "docs/server-start.md"), "utf8");
    const script = /<!-- start-script -->\s*```sh\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(await shown("start-modpack.sh").textContent()).toBe(script);
    // Another id form changes the file shown and the script's request alike.
    await page.getByLabel("Mod ids").selectOption("plain");
    const plain = await served("ini&idForm=plain");
    await waitFor(
      "the file with bare ids",
      () => shown("Server file").textContent(),
      (text) => text === plain.text,
    );
    expect(await shown("start-modpack.sh").textContent()).toBe(script);
    expect(await shown("Start command").textContent()).toContain("ID_FORM=plain");
    await page.getByLabel("Mod ids").selectOption("backslash");
    const command = shown("Start command");
    expect(await command.textContent()).toContain(`MODPACK_URL=${apiUrl} MODPACK_ID=${modpackId} \\`);

    // A server token for this pack: shown once, copied, and put into the start command.
    // A name of blanks is refused in the service's words, and no token is made.
    const tokenName = page.getByLabel("Token name");
    const createToken = page.getByRole("button", { name: "Create a server token" });
    await tokenName.fill("   ");
    await createToken.click();
    const refused = await asBrowser("POST", "/auth/tokens", { name: "   ", scopes: ["read"], modpackIds: [modpackId] });
    expect(refused.status).toBe(400);
    const alert = page.getByRole("alert");
    await alert.getByText("Could not create the token.").waitFor();
    await alert.getByText(fromErrorBody(refused.status, refused.body).message, { exact: false }).first().waitFor();
    expect(((await asBrowser("GET", "/auth/tokens")).body as { data: unknown[] }).data).toEqual([]);

    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: webUrl });
    const name = `Knox "main" <server> 🧟 — خادم`;
    await tokenName.fill(name);
    await createToken.click();
    const created = page.getByRole("status", { name: "New token" });
    const token = (await created.locator("code").textContent()) ?? "";
    expect(token).toMatch(/^mcs_\S+$/);
    await created.getByRole("button", { name: "Copy the token" }).click();
    await created.getByText("Copied").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(token);
    await waitFor(
      "the token in the command",
      () => command.textContent(),
      (text) => Boolean(text?.includes(`MODPACK_TOKEN=${token} \\\n`)),
    );
    const listed = (await asBrowser("GET", "/auth/tokens")).body as {
      data: { name: string; scopes: string[]; modpackIds: string[] }[];
    };
    expect(listed.data).toEqual([
      expect.objectContaining({ name, scopes: ["read", "report"], modpackIds: [modpackId] }),
    ]);

    // With it, the pack and its file read; a change answers 403 and changes nothing.
    const bearer = { authorization: `Bearer ${token}` };
    expect((await fetch(`${apiUrl}/modpacks/${modpackId}`, { headers: bearer })).status).toBe(200);
    expect((await served("ini", bearer)).text).toBe(ini.text);
    const write = await fetch(`${apiUrl}/modpacks/${modpackId}`, {
      method: "PATCH",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ name: "Renamed by a read token" }),
    });
    expect(write.status).toBe(403);
    expect(((await asBrowser("GET", `/modpacks/${modpackId}`)).body as { name: string }).name).not.toBe(
      "Renamed by a read token",
    );

    // The command as copied starts a server: the pack's lines go into its settings, the rest stays.
    await page.getByRole("button", { name: "Copy Start command" }).click();
    const copied = await page.evaluate<string>("navigator.clipboard.readText()");
    expect(copied).toBe(await command.textContent());
    const folder = await mkdtemp(path.join(tmpdir(), "web-server-start-"));
    try {
      const settings = path.join(folder, "servertest.ini");
      await writeFile(settings, "PVP=true\r\nMods=OldMod\r\nPublic=false\r\n");
      await writeFile(path.join(folder, "start-modpack.sh"), script ?? "", { mode: 0o755 });
      await writeFile(path.join(folder, "start-server.sh"), '#!/bin/sh\necho "$@" > started\n', { mode: 0o755 });
      await promisify(execFile)("sh", ["-c", copied.replace("/home/steam/Zomboid/Server/servertest.ini", settings)], {
        cwd: folder,
        env: { PATH: `${folder}:${process.env.PATH ?? "/usr/bin:/bin"}` },
        timeout: 30_000,
      });
      expect(await readFile(path.join(folder, "started"), "utf8")).toBe("-servername servertest\n");
      const lines = ini.text.split("\n").filter((line) => /^(Mods|WorkshopItems|Map)=/.test(line));
      expect((await readFile(settings, "utf8")).split("\r\n")).toEqual([
        "PVP=true",
        ...lines.slice(0, 1),
        "Public=false",
        ...lines.slice(1),
        "",
      ]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    await photograph("server");

    // On Build 41 the file is that version's, and the script asks for it.
    await page.getByLabel("Game version").selectOption("41x");
    const ini41 = await (
      await fetch(`${apiUrl}/modpacks/${modpackId}/server-file?version=41x`, { headers: bearer })
    ).text();
    await waitFor(
      "the Build 41 file",
      () => shown("Server file").textContent(),
      (text) => text === ini41,
    );
    expect(await shown("start-modpack.sh").textContent()).toBe(script);
    expect(await shown("Start command").textContent()).toContain("PZ_VERSION=41x");
  }, 60_000);

  it("adds a webhook, sends it a signed test the receiver verifies, disables and deletes it", async () => {
    await page.goto(`${webUrl}/modpacks/${modpackId}`);
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.waitForURL(`${webUrl}/modpacks/${modpackId}/webhooks`);
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    expect(await page.title()).toBe("Webhooks · Modpacks");
    await page.getByText("No webhooks yet").waitFor();
    const hooks = `/modpacks/${modpackId}/webhooks`;

    // What the service refuses, in its words; nothing is added.
    const url = page.getByLabel("Webhook URL");
    const add = page.getByRole("button", { name: "Add webhook" });
    const eventBoxes = page.getByRole("group", { name: "Events" }).getByRole("checkbox");
    for (const { target, noEvents } of [
      { target: "ftp://files.example.com/hook" },
      { target: receiver.url("/knox").replace("http://", "http://admin:hunter2@") },
      { target: `https://example.com/${"a".repeat(2048)}` },
      { target: receiver.url("/knox"), noEvents: true },
    ]) {
      await url.fill(target);
      if (noEvents) for (const box of await eventBoxes.all()) await box.uncheck();
      await add.click();
      const refused = await asBrowser("POST", hooks, { url: target, ...(noEvents ? { events: [] } : {}) });
      expect(refused.status).toBe(400);
      const alert = page.getByRole("alert");
      await alert.getByText("Could not add the webhook.").waitFor();
      await alert.getByText(fromErrorBody(refused.status, refused.body).message, { exact: false }).first().waitFor();
    }
    expect(((await asBrowser("GET", hooks)).body as { data: unknown[] }).data).toEqual([]);
    for (const box of await eventBoxes.all()) await box.check();

    // A Discord webhook takes Discord's format, and its token is shown masked as the service masks it.
    const discordToken = "sEcReT-t0ken_of-the-channel";
    await url.fill(`https://discord.com/api/webhooks/123456789012345678/${discordToken}`);
    await page.getByLabel("Description").fill("Discord #server-status");
    await add.click();
    const discord = page.getByRole("listitem", { name: "Discord #server-status" });
    await discord.waitFor();
    const [masked] = ((await asBrowser("GET", hooks)).body as { data: { url: string }[] }).data;
    expect(masked?.url).not.toContain(discordToken);
    await discord.getByText(masked?.url ?? "", { exact: true }).waitFor();
    await discord.getByText("Discord", { exact: true }).waitFor();
    expect(await page.getByText(discordToken).count()).toBe(0);
    await discord.getByRole("button", { name: "Delete Discord #server-status" }).click();
    await discord.getByRole("button", { name: "Yes, delete Discord #server-status" }).click();
    await discord.waitFor({ state: "detached" });

    // One to the receiver on loopback, without import events: its secret is shown once, and copies.
    const description = `Restart "Knox" <server> 🧟`;
    await url.fill(receiver.url("/knox"));
    await page.getByLabel("Description").fill(description);
    await page.getByRole("checkbox", { name: /^import\.finished/ }).uncheck();
    await add.click();
    const item = page.getByRole("listitem", { name: description });
    const created = page.getByRole("status", { name: `Signing secret of ${description}` });
    const secret = (await created.locator("code").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await created.getByRole("button", { name: "Copy the secret" }).click();
    await created.getByText("Copied").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);
    expect(await url.inputValue()).toBe("");
    const listed = (await asBrowser("GET", hooks)).body as { data: { id: string; url: string; events: string[] }[] };
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]?.events).not.toContain("import.finished");
    await item.getByText(listed.data[0]?.url ?? "").waitFor();
    await item.getByText("Active", { exact: true }).waitFor();
    expect(await item.getByRole("list", { name: "Events" }).getByRole("listitem").allTextContents()).toEqual(
      listed.data[0]?.events,
    );
    await item.getByText("No deliveries yet.").waitFor();

    // A test: the receiver gets the signed event, and the page follows the delivery until it is done.
    await item.getByRole("button", { name: `Send a test to ${description}` }).click();
    const [delivered] = await waitFor(
      "the test event at the receiver",
      async () => receiver.received("/knox"),
      (list) => list.length > 0,
    );
    const event = new Webhook(secret).verify(delivered?.body ?? "", delivered?.headers as Record<string, string>);
    expect(event).toMatchObject({ type: "webhook.test", data: { modpack: { id: modpackId } } });
    const row = item.getByRole("table", { name: `Deliveries of ${description}` }).locator("tbody tr");
    await row.getByText("succeeded").waitFor();
    const [logged] = (
      (await asBrowser("GET", `${hooks}/${listed.data[0]?.id}/deliveries`)).body as {
        data: { status: string; responseStatus: number; attempt: number; error: string | null }[];
      }
    ).data;
    expect(logged).toMatchObject({ status: "succeeded", responseStatus: 200, attempt: 1 });
    expect(await row.locator("td").allTextContents()).toEqual([
      "webhook.test",
      "succeeded",
      "200",
      "1",
      logged?.error ?? "",
      expect.any(String),
    ]);
    await photograph("webhooks");

    // Disabled, it takes no test, in the service's words; enabled again, and deleted once confirmed.
    await item.getByRole("button", { name: `Disable ${description}` }).click();
    await item.getByText("Disabled", { exact: true }).waitFor();
    expect(((await asBrowser("GET", hooks)).body as { data: { isActive: boolean }[] }).data[0]?.isActive).toBe(false);
    await item.getByRole("button", { name: `Send a test to ${description}` }).click();
    const idle = await asBrowser("POST", `${hooks}/${listed.data[0]?.id}/test`);
    expect(idle.status).toBe(409);
    const alert = item.getByRole("alert");
    await alert.getByText("Could not send a test.").waitFor();
    await alert.getByText(fromErrorBody(idle.status, idle.body).message).waitFor();
    await item.getByRole("button", { name: `Enable ${description}` }).click();
    await item.getByText("Active", { exact: true }).waitFor();
    await alert.waitFor({ state: "detached" });
    expect(((await asBrowser("GET", hooks)).body as { data: { isActive: boolean }[] }).data[0]?.isActive).toBe(true);
    expect(receiver.received("/knox")).toHaveLength(1);

    await item.getByRole("button", { name: `Delete ${description}` }).click();
    await item.getByRole("button", { name: "Keep it" }).click();
    await item.getByRole("button", { name: `Delete ${description}` }).click();
    await item.getByRole("button", { name: `Yes, delete ${description}` }).click();
    await page.getByText("No webhooks yet").waitFor();
    expect(((await asBrowser("GET", hooks)).body as { data: unknown[] }).data).toEqual([]);

    // Another owner's pack: no way in from its page, and the service's refusal at the address.
    await page.goto(`${webUrl}/modpacks/${othersModpackId}`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await page.getByRole("link", { name: "Webhooks", exact: true }).count()).toBe(0);
    await page.goto(`${webUrl}/modpacks/${othersModpackId}/webhooks`);
    const forbidden = await asBrowser("GET", `/modpacks/${othersModpackId}/webhooks`);
    expect(forbidden.status).toBe(403);
    const refusal = page.getByRole("alert");
    await refusal.getByText("Could not load the webhooks.").waitFor();
    await refusal.getByText(fromErrorBody(forbidden.status, forbidden.body).message).waitFor();
  }, 60_000);

  it("shows every mod of a pack longer than a page of the list, and moves one keeping the rest", async () => {
    const bulk = Array.from({ length: BULK_SIZE }, (_, index) => String(3200000001 + index));
    for (const id of bulk) steam.items.set(id, fakeMod(id, { title: `Bulk mod ${id.slice(-3)}`, builds: ["42"] }));
    steam.collections.set(BULK_COLLECTION, bulk);
    const created = await asBrowser("POST", "/modpacks", { name: "Big server pack" });
    expect(created.status).toBe(201);
    const bigId = (created.body as { id: string }).id;
    const started = await asBrowser("POST", `/modpacks/${bigId}/import`, { platformUrl: workshopUrl(BULK_COLLECTION) });
    expect(started.status).toBe(202);
    const imported = await waitFor(
      "the import finishing",
      async () => ((await asBrowser("GET", `/modpacks/${bigId}/import/status`)).body as { status: string }).status,
      (status) => status === "completed" || status === "failed",
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    expect(imported).toBe("completed");

    await page.goto(`${webUrl}/modpacks/${bigId}`);
    const names = bulk.map((id) => `Bulk mod ${id.slice(-3)}`);
    await waitForOrder(names);
    const last = names.at(-1) ?? "";
    await page.getByRole("button", { name: `Move ${last} up` }).click();
    const moved = [...names.slice(0, -2), last, names.at(-2) ?? ""];
    await waitForOrder(moved);
    await waitForSaved(moved, bigId);
  }, 180_000);

  it("answers an address it does not know, and a modpack the service does not have, in the service's words", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-modpack-id"]) {
      await page.goto(`${webUrl}/modpacks/${id}`);
      const answer = await asBrowser("GET", `/modpacks/${id}`);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      const alert = page.getByRole("alert");
      await alert.getByText("Could not open this modpack.").waitFor();
      await alert.getByText(fromErrorBody(answer.status, answer.body).message).waitFor();
    }
    await photograph("modpack-missing");
    await page.goto(`${webUrl}/no/such/page`);
    await page.getByText("Nothing here").waitFor();
    expect(await page.title()).toBe("Not found · Modpacks");
  }, 60_000);

  it("reads everyone's public modpacks to the end by scrolling, newest first", async () => {
    await page.getByRole("link", { name: "Public modpacks" }).click();
    const list = page.getByRole("list", { name: "Public modpacks" });
    await list.getByRole("listitem").first().waitFor();
    await photograph("public");
    // Scrolling to the end of the list loads the page after the cursor; no button is pressed.
    await waitFor(
      "every public modpack listed",
      async () => {
        await page.locator(".list-end").scrollIntoViewIfNeeded();
        return page.getByText(`All ${publicNames.length} shown`).count();
      },
      (shown) => shown === 1,
      { intervalMs: 100 },
    );
    const names = await list.getByRole("heading").allTextContents();
    expect(names).toEqual(publicNames.map((name) => name.trim()).reverse());
    await photograph("public-end");

    // The service's search, ignoring case and accents; and the empty state when nothing matches.
    const search = page.getByRole("searchbox", { name: "Search public modpacks" });
    await search.fill("UBERLEBEN knox");
    await waitFor(
      "one match",
      () => list.getByRole("heading").allTextContents(),
      (found) => found.length === 1 && found[0] === "Überleben in Knox — Ünïcödé",
    );
    await search.fill("no such modpack anywhere");
    await page.getByText("Nothing matches").waitFor();
    await photograph("public-empty");
  }, 90_000);

  it("signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("You are not signed in.").waitFor();
    expect((await asBrowser("GET", "/modpacks/my")).status).toBe(401);
  }, 60_000);

  it("loaded nothing from another origin and threw no error", () => {
    expect(offOrigin).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
