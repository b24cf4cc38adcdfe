import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/net.js";
import {
  clientRoot,
  npmInstall,
  packClient,
  run,
  tsc,
  typeErrors,
  typescriptVersion,
} from "./support/packed-client.js";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

/**
 * The published client as a front-end gets it: build, `pnpm pack`, install the tarball alone in a
 * project outside the workspace, type-check code against it, and run that code against a live server.
 */

const tsconfig = (files: string[], emit: boolean) => ({
  compilerOptions: {
    target: "ES2022",
    // @trpc/server's own declarations name Disposable; the rest is what any browser app has.
    lib: ["ES2022", "DOM", "ESNext.Disposable"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    // Check the client's bundled declarations too, not just the code using them.
    skipLibCheck: false,
    types: [],
    // Exported values need nameable types in the emitted declarations (TS4023 otherwise).
    ...(emit ? { outDir: "out", declaration: true } : { noEmit: true }),
  },
  files,
});

/** Correct use of the client, as a script would write it; prints what it got as one JSON line. */
const usage = `import {
  type ApiError,
  createClient,
  isApiError,
  type MemberPermission,
  type Modpack,
  type RouterInputs,
  type RouterOutputs,
  toApiError,
} from "@modpack/client";

declare const process: { env: Record<string, string | undefined> };

const baseUrl = process.env.BASE_URL ?? "http://127.0.0.1:3000";
const api = createClient({ baseUrl, token: process.env.TOKEN });

async function failure(call: () => Promise<unknown>): Promise<ApiError | null> {
  try {
    await call();
    return null;
  } catch (error) {
    return toApiError(error);
  }
}

const input: RouterInputs["modpacks"]["create"] = { name: "Packed client pack", description: "From the tarball", isPublic: true };
const created: Modpack = await api.modpacks.create.mutate(input);
// Results exported as they are: their declarations must name only types the package exports.
export const createdAgain = await api.modpacks.create.mutate({ name: "Packed client pack 2" });
export const invalidLater = () => api.modpacks.create.mutate({ name: "x" });
export const stream = api.onNotification;
export const permissions: MemberPermission[] = createdAgain.members.flatMap((member) => member.permission);
const read: RouterOutputs["modpacks"]["get"] = await api.modpacks.get.query({ id: created.id });
const [session, mine] = await Promise.all([api.auth.session.query(), api.modpacks.listMine.query({ limit: 5 })]);

const anonymous = createClient({ baseUrl });
const unauthenticated = await failure(() => anonymous.modpacks.listMine.query({}));
const invalid = await failure(() => api.modpacks.create.mutate({ name: "x" }));
const denied = await failure(() => api.modpacks.get.query({ id: process.env.OTHER_MODPACK_ID ?? "" }));
const offline = await failure(() => createClient({ baseUrl: process.env.CLOSED_URL ?? "" }).health.check.query());

console.log(
  JSON.stringify({
    created: { id: created.id, name: created.name, isPublic: created.isPublic, owner: created.owner },
    read: { id: read.id, name: read.name, description: read.description, members: read.members.length },
    sessionUserId: session.user.id,
    mineTotal: mine.pagination.total,
    unauthenticated,
    invalid,
    denied,
    deniedIsForbidden: isApiError(denied, "FORBIDDEN"),
    offline: offline && { status: offline.status, code: offline.code },
  }),
);
`;

/** A misspelt field: must not compile. */
const wrongUsage = `import { createClient } from "@modpack/client";

const api = createClient({ baseUrl: "http://127.0.0.1:3000" });
await api.modpacks.create.mutate({ nam: "x" });
`;

/** The versions of the peers the workspace builds and tests with (the newest of the ranges). */
const workspacePeers = Object.fromEntries(
  ["@trpc/client", "@trpc/server", "zod"].map((name) => [
    name,
    (
      JSON.parse(readFileSync(path.join(clientRoot, "node_modules", name, "package.json"), "utf8")) as {
        version: string;
      }
    ).version,
  ]),
);

let workDir: string;
let projectDir: string;
let tarball: string;
let service: TestService;

// Packing and type-checking the client is most of its time, and its live calls reach the same
// routes whatever the database (each route's own tests run on both): one of CI's two runs (the
// embedded database's, which is also a bare `pnpm test`) is enough.
const onPostgres = Boolean(process.env.DATABASE_URL);
if (onPostgres) console.info("client-package: runs on the embedded database only (DATABASE_URL is set)");

describe.skipIf(onPostgres)("the packed @modpack/client", () => {
  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), "mcs-client-package-"));
    projectDir = path.join(workDir, "app");
    await mkdir(projectDir);
    const [, started] = await Promise.all([
      (async () => {
        tarball = await packClient(workDir);
        await writeFile(
          path.join(projectDir, "package.json"),
          JSON.stringify(
            {
              name: "client-package-consumer",
              private: true,
              type: "module",
              dependencies: {
                "@modpack/client": `file:${tarball}`,
                typescript: typescriptVersion,
                ...workspacePeers,
              },
            },
            null,
            2,
          ),
        );
        const install = await npmInstall(projectDir);
        if (install.code !== 0) {
          throw new Error(
            `npm install of the packed client failed (exit ${install.code}). This test needs the npm registry ` +
              `(for @trpc/client, @trpc/server, zod and typescript); is it reachable?\n${install.output}`,
          );
        }
        await writeFile(path.join(projectDir, "usage.ts"), usage);
        await writeFile(path.join(projectDir, "wrong.ts"), wrongUsage);
        await writeFile(path.join(projectDir, "tsconfig.json"), JSON.stringify(tsconfig(["usage.ts"], true), null, 2));
        await writeFile(
          path.join(projectDir, "tsconfig.wrong.json"),
          JSON.stringify(tsconfig(["wrong.ts"], false), null, 2),
        );
      })(),
      startTestService(),
    ]);
    service = started;
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it("installs alone: its files, its peers, its links, and no workspace package", () => {
    const packageRoot = path.join(projectDir, "node_modules/@modpack/client");
    const installed = JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependencies: Record<string, string>;
      exports: Record<string, string | Record<string, string>>;
      repository: { url: string; directory: string };
      homepage: string;
      bugs: { url: string };
    };
    // The app's own @trpc/* and zod are the ones the client uses: one copy of each.
    expect(installed.dependencies ?? {}).toEqual({});
    expect(Object.keys(installed.peerDependencies).sort()).toEqual(["@trpc/client", "@trpc/server", "zod"]);
    // Each range starts at the oldest version it is tested with (the test below installs that one).
    for (const range of Object.values(installed.peerDependencies)) {
      expect(range).toMatch(/^(\^\d+\.\d+\.\d+|>=\d+\.\d+\.\d+ <\d+)$/);
    }
    expect(installed.repository).toEqual(
      expect.objectContaining({ url: expect.any(String), directory: "packages/client" }),
    );
    expect(installed.homepage).toMatch(/^https:\/\//);
    expect(installed.bugs.url).toMatch(/^https:\/\//);
    // Every export condition points at a file the tarball has.
    const targets = Object.values(installed.exports).flatMap((target) =>
      typeof target === "string" ? [target] : Object.values(target),
    );
    expect(targets.length).toBeGreaterThan(2);
    for (const target of targets) expect(existsSync(path.join(packageRoot, target)), target).toBe(true);
    expect(existsSync(path.join(projectDir, "node_modules/@modpack/contract"))).toBe(false);
    expect(existsSync(path.join(projectDir, "node_modules/trpc-to-openapi"))).toBe(false);
    const declarations = readFileSync(path.join(projectDir, "node_modules/@modpack/client/dist/index.d.ts"), "utf8");
    const imported = [...declarations.matchAll(/^import .*?["']([^"']+)["'];?$/gm)].map((match) => match[1]);
    for (const specifier of imported) expect(specifier).toMatch(/^(@trpc\/client|@trpc\/server|zod)(\/|$)/);
    // No pointers to documents that are not in the package.
    expect(declarations).not.toMatch(/\.md\b|\bsection \d|decisions|service-interface/);
    const size = statSync(tarball).size;
    process.stdout.write(`@modpack/client tarball: ${size} bytes\n`);
    expect(size).toBeLessThan(100_000);
  });

  it("type-checks correct code against the bundled types", async () => {
    const result = await tsc(projectDir);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);

  it("type-checks against the oldest versions its peer ranges allow", async () => {
    const installed = JSON.parse(
      readFileSync(path.join(projectDir, "node_modules/@modpack/client/package.json"), "utf8"),
    ) as { peerDependencies: Record<string, string> };
    const oldest = Object.fromEntries(
      Object.entries(installed.peerDependencies).map(([name, range]) => [name, range.match(/\d+\.\d+\.\d+/)?.[0]]),
    );
    const oldDir = path.join(workDir, "app-oldest-peers");
    await mkdir(oldDir);
    await writeFile(
      path.join(oldDir, "package.json"),
      JSON.stringify({
        name: "client-package-oldest-peers",
        private: true,
        type: "module",
        dependencies: { "@modpack/client": `file:${tarball}`, typescript: typescriptVersion, ...oldest },
      }),
    );
    const install = await npmInstall(oldDir);
    expect(install.code, install.output).toBe(0);
    for (const [name, version] of Object.entries(oldest)) {
      const actual = JSON.parse(readFileSync(path.join(oldDir, "node_modules", name, "package.json"), "utf8")) as {
        version: string;
      };
      expect(actual.version, name).toBe(version);
    }
    await writeFile(path.join(oldDir, "usage.ts"), usage);
    await writeFile(path.join(oldDir, "tsconfig.json"), JSON.stringify(tsconfig(["usage.ts"], true)));
    const result = await tsc(oldDir);
    expect(typeErrors(result.output)).toBe("");
  }, 300_000);

  it("rejects a misspelt input field at compile time", async () => {
    const result = await tsc(projectDir, "tsconfig.wrong.json");
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("wrong.ts(4,");
    expect(result.output).toMatch(/'nam' does not exist in type/);
  }, 120_000);

  it("runs against a live server: creates and reads a modpack, and reports errors like the REST API", async () => {
    const owner = await signIn(service);
    const other = await signIn(service);
    const tokenResponse = await service.app.inject({
      method: "POST",
      url: "/auth/tokens",
      headers: owner.headers,
      payload: { name: "client package test" },
    });
    expect(tokenResponse.statusCode).toBe(201);
    const token = (tokenResponse.json() as { token: string }).token;
    const otherModpack = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: other.headers,
      payload: { name: "Someone else's pack" },
    });
    expect(otherModpack.statusCode).toBe(201);
    const otherModpackId = (otherModpack.json() as { id: string }).id;

    const baseUrl = await service.app.listen({ port: 0, host: "127.0.0.1" });
    const closedUrl = `http://127.0.0.1:${await freePort()}`;
    const result = await run(process.execPath, ["out/usage.js"], {
      cwd: projectDir,
      env: { BASE_URL: baseUrl, TOKEN: token, OTHER_MODPACK_ID: otherModpackId, CLOSED_URL: closedUrl },
      timeoutMs: 60_000,
    });
    expect(result.code, result.output).toBe(0);
    const printed = JSON.parse(result.output.trim().split("\n").at(-1) ?? "{}");

    expect(printed.created).toEqual({
      id: expect.any(String),
      name: "Packed client pack",
      isPublic: true,
      owner: owner.userId,
    });
    expect(printed.read).toEqual({
      id: printed.created.id,
      name: "Packed client pack",
      description: "From the tarball",
      members: 0,
    });
    expect(printed.sessionUserId).toBe(owner.userId);
    expect(printed.mineTotal).toBe(2);
    expect(printed.unauthenticated).toEqual({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
    expect(printed.offline).toEqual({ status: 0, code: "NETWORK_ERROR" });
    expect(printed.deniedIsForbidden).toBe(true);

    // The same failures through REST: the client's errors carry the same status, code, message and issues.
    const bearer = { authorization: `Bearer ${token}` };
    const restInvalid = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: bearer,
      payload: { name: "x" },
    });
    expect(restInvalid.statusCode).toBe(400);
    expect(printed.invalid).toEqual({ status: 400, ...(restInvalid.json() as { error: object }).error });
    expect(printed.invalid.issues).toEqual([{ path: "name", message: "Must be 3-50 characters" }]);
    const restDenied = await service.app.inject({ method: "GET", url: `/modpacks/${otherModpackId}`, headers: bearer });
    expect(restDenied.statusCode).toBe(403);
    expect(printed.denied).toEqual({ status: 403, ...(restDenied.json() as { error: object }).error });
    expect(printed.denied.message).toBe("Access denied");
    const restUnauthenticated = await service.app.inject({ method: "GET", url: "/modpacks/my" });
    expect(restUnauthenticated.statusCode).toBe(401);
    expect(restUnauthenticated.json()).toEqual({ message: printed.unauthenticated.message });
  }, 120_000);
});
