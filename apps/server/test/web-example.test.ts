/**
 * examples/web end to end in headless Chromium (Debian's `chromium`, driven by playwright-core):
 * the React app served by Vite on its own origin, the real service on another (listed in
 * ORIGIN_ALLOWED) with the local Steam Web API fixture. A person's path: sign in through the
 * development identity provider, create a modpack, add a mod by workshop URL, ask for a server
 * file, see the notification arrive live, download the file. Screenshots go to test-artifacts/.
 * Skipped, with a printed reason, where Chromium is not installed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { ARTIFACTS, CHROMIUM_FLAGS, CHROMIUM_PATH, chromiumAvailable } from "./support/browser.js";
import { freePort } from "./support/net.js";
import { startTestService, type TestService } from "./support/service.js";

const hasChromium = chromiumAvailable("web-example.test.ts");

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

describe.skipIf(!hasChromium)("examples/web in headless Chromium against the real service", () => {
  let steam: FakeSteam;
  let service: TestService;
  let vite: ChildProcess | undefined;
  let browser: Browser;
  let page: Page;
  let webUrl: string;
  const pageErrors: string[] = [];

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
    steam.items.set("3100000001", fakeItem("3100000001", { title: "Vehicle Overhaul Pack" }));

    const [apiPort, webPort] = [await freePort(), await freePort()];
    webUrl = `http://127.0.0.1:${webPort}`;
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    service = await startTestService({
      env: { PUBLIC_URL: apiUrl, ORIGIN_ALLOWED: webUrl, WORKSHOP_API_URL: steam.url },
    });
    await service.app.listen({ port: apiPort, host: "127.0.0.1" });
    vite = await startVite(webPort, apiUrl);

    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
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
  });

  it("signs in, creates a modpack, adds a mod, sees the notification arrive and downloads the file", async () => {
    await page.goto(`${webUrl}/`);
    await page.getByRole("link", { name: "Sign in" }).click();
    // The development identity provider's form, on the service's origin.
    await page.getByLabel("Name").fill("Web Person");
    await page.getByLabel("Email").fill("web.person@example.com");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${webUrl}/`).catch(async (error) => {
      throw new Error(`${error}\nat ${page.url()}:\n${(await page.content()).slice(0, 1500)}`);
    });
    await page.getByText("Signed in as").waitFor();
    expect(await page.getByText("web.person@example.com").count()).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, "web-signed-in.png") });

    await page.getByLabel("New modpack").fill("Browser Roadtrip");
    await page.getByRole("button", { name: "Create" }).click();
    await page.getByRole("heading", { name: "Browser Roadtrip" }).waitFor();
    await page.getByRole("button", { name: "Browser Roadtrip" }).waitFor();

    await page.getByLabel("Workshop URL").fill("https://steamcommunity.com/sharedfiles/filedetails/?id=3100000001");
    await page.getByRole("button", { name: "Add mod" }).click();
    await page.getByRole("list", { name: "Mods" }).getByText("Vehicle Overhaul Pack").waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, "web-modpack.png") });

    await page.getByRole("button", { name: "Generate server file (41x)" }).click();
    const notifications = page.getByRole("region", { name: "Notifications" });
    await notifications.getByText("Server file ready").waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS, "web-notification.png") });

    const downloading = page.waitForEvent("download");
    await notifications.getByRole("link", { name: "Download" }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("browser-roadtrip-41x.ini");
    const file = await readFile(await download.path(), "utf8");
    expect(file).toContain("WorkshopItems=3100000001");
    expect(file).toContain("Mods=Mod3100000001");

    expect(await page.getByRole("alert").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
