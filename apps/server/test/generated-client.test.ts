/**
 * A REST consumer's path: a client generated from the live `/openapi.json` with openapi-typescript
 * and openapi-fetch, a script written against it that runs the README's walkthrough (API token,
 * modpack, mod by URL, collection import, server file, download), type-checked with tsc and run as
 * a child process against the service listening on loopback with the Steam stand-in.
 *
 * Generating and compiling is slow and says nothing more on Postgres, so it runs on the embedded
 * database only.
 */
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeSteam, fakeItem, startFakeSteam } from "./fixtures/steam-api.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";
import { workshopUrl } from "./support/workshop.js";

const run = promisify(execFile);
const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => path.join(serverRoot, "node_modules/.bin", name);

/**
 * The walkthrough, as a REST consumer writes it with the generated types: every path, parameter
 * and body below is checked by tsc against the document, so a renamed field fails to compile.
 */
const walkthrough = `import { writeFile } from "node:fs/promises";
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const baseUrl = process.env.BASE_URL ?? "";
const fail = (step: string, error: unknown): never => {
  throw new Error(step + ": " + JSON.stringify(error));
};
const until = async <T>(step: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) fail(step, value);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

// 1. An API token, made with the browser session's cookie.
const session = createClient<paths>({ baseUrl, headers: { cookie: process.env.SESSION_COOKIE } });
const token = await session.POST("/auth/tokens", { body: { name: "generated client", expiresInDays: 1 } });
if (!token.data) fail("token", token.error);

const client = createClient<paths>({ baseUrl, headers: { authorization: "Bearer " + token.data?.token } });

// 2. A modpack. A name that breaks the schema is refused with the issues listed.
const refused = await client.POST("/modpacks", { body: { name: "x" } });
const created = await client.POST("/modpacks", {
  body: { name: "  Generated Walkthrough  ", description: "Made with openapi-fetch" },
});
if (!created.data) fail("create", created.error);
const id = created.data?.id ?? "";
const params = { path: { id } };

// 3. A mod by workshop URL.
const added = await client.POST("/modpacks/{id}/mods", {
  params,
  body: { modAtribute: process.env.MOD_URL ?? "" },
});
if (!added.data) fail("add mod", added.error);

// 4. A collection import, followed until it ends.
const started = await client.POST("/modpacks/{id}/import", {
  params,
  body: { platformUrl: process.env.COLLECTION_URL ?? "" },
});
if (!started.data) fail("import", started.error);
const imported = await until(
  "import status",
  async () => (await client.GET("/modpacks/{id}/import/status", { params })).data,
  (status) => status?.status === "completed" || status?.status === "failed",
);

// 5. The check, 6. the server file, followed until it is ready.
const check = await client.GET("/modpacks/{id}/check", { params: { path: { id }, query: { version: "42x" } } });
const requested = await client.POST("/modpacks/{id}/server-file", { params, body: { version: "42x" } });
if (!requested.data) fail("server file", requested.error);
const exportId = requested.data?.exportId ?? "";
const ready = await until(
  "export status",
  async () => (await client.GET("/modpacks/export/{exportId}", { params: { path: { exportId } } })).data,
  (status) => status?.status === "completed" || status?.status === "failed",
);

// 7. The download, saved under the name the service gives it.
const download = await client.GET("/modpacks/export/{exportId}/download", {
  params: { path: { exportId } },
  parseAs: "text",
});
if (download.data === undefined) fail("download", download.error);
const disposition = download.response.headers.get("content-disposition") ?? "";
const fileName = /filename="?([^";]+)/.exec(disposition)?.[1] ?? "server.ini";
await writeFile(fileName, download.data ?? "");

console.log(JSON.stringify({
  refused: refused.response.status,
  refusedField: refused.error && "error" in refused.error ? refused.error.error.issues?.[0]?.path : undefined,
  name: created.data?.name,
  created: created.response.status,
  addedMod: added.data?.modId === undefined ? undefined : added.response.status,
  importStarted: started.response.status,
  imported: { status: imported?.status, modsImported: imported?.modsImported, modsFailed: imported?.modsFailed },
  checkOk: check.data?.ok,
  exportStatus: ready?.status,
  fileName,
  contentType: download.response.headers.get("content-type"),
}));
`;

const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres) console.info("generated-client: runs on the embedded database only (DATABASE_URL is set)");

describe.skipIf(onPostgres)("a client generated by openapi-typescript + openapi-fetch", () => {
  let steam: FakeSteam;
  let service: TestService;
  let workDir: string;

  beforeAll(async () => {
    steam = await startFakeSteam();
    // Added by URL, and a collection of two more mods, the first again (counted as imported), and an item gone from the workshop.
    for (const id of ["4101", "4201", "4202"]) steam.items.set(id, fakeItem(id));
    steam.collections.set("4900", ["4201", "4202", "4101", "4404"]);
    service = await startTestService({ env: { WORKSHOP_API_URL: steam.url } });
    workDir = path.join(serverRoot, "test-artifacts", `generated-client-${process.pid}`);
    await mkdir(workDir, { recursive: true });
  });
  afterAll(async () => {
    await service?.stop();
    await steam?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("type-checks the README walkthrough against the live document and runs it", async () => {
    const baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenAPI3;
    await writeFile(path.join(workDir, "api.d.ts"), astToString(await openapiTS(document)));
    await writeFile(path.join(workDir, "walkthrough.ts"), walkthrough);
    await writeFile(path.join(workDir, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(
      path.join(workDir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [path.join(serverRoot, "node_modules/@types")],
          outDir: "out",
        },
        files: ["walkthrough.ts", "api.d.ts"],
      }),
    );
    await run(bin("tsc"), ["-p", workDir]).catch((error: { stdout?: string }) => {
      throw new Error(`the walkthrough does not compile against the generated client:\n${error.stdout ?? ""}`);
    });

    const owner = await signIn(service, { name: "Generated Client" });
    const { stdout } = await run(process.execPath, [path.join(workDir, "out/walkthrough.js")], {
      cwd: workDir,
      env: {
        ...process.env,
        BASE_URL: baseUrl,
        SESSION_COOKIE: owner.headers.cookie,
        MOD_URL: workshopUrl("4101"),
        COLLECTION_URL: workshopUrl("4900"),
      },
    });
    expect(JSON.parse(stdout)).toEqual({
      refused: 400,
      refusedField: "name",
      name: "Generated Walkthrough",
      created: 201,
      addedMod: 201,
      importStarted: 202,
      imported: { status: "completed", modsImported: 3, modsFailed: 1 },
      checkOk: expect.any(Boolean),
      exportStatus: "completed",
      fileName: "generated-walkthrough-42x.ini",
      contentType: "text/plain; charset=utf-8",
    });
    const ini = await readFile(path.join(workDir, "generated-walkthrough-42x.ini"), "utf8");
    expect(ini).toContain("# Game version: 42x");
    const mods = ini
      .split("\n")
      .find((line) => line.startsWith("Mods="))
      ?.slice("Mods=".length)
      .split(";");
    // The mod added by URL first, then the collection's two new ones in either order.
    expect(mods?.[0]).toBe(String.raw`\Mod4101`);
    expect(mods?.slice(1).sort()).toEqual([String.raw`\Mod4201`, String.raw`\Mod4202`]);
  }, 180_000);
});
