import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `pnpm lint` is the guard against import circles and layer breaches; these cases prove that the
// workspace's own Biome configuration refuses them, on small trees written for the purpose.
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const biome = join(root, "node_modules/.bin/biome");

type Case = { name: string; files: Record<string, string>; rule: string | null };

const cases: Case[] = [
  {
    name: "an import circle between two modules",
    files: {
      "apps/server/src/db/a.ts": 'import { b } from "./b.js";\nexport const a = () => b();\n',
      "apps/server/src/db/b.ts": 'import { a } from "./a.js";\nexport const b = (): unknown => a;\n',
    },
    rule: "lint/suspicious/noImportCycles",
  },
  {
    name: "an import circle through a third module and type-only imports",
    files: {
      "apps/server/src/db/a.ts": 'import type { C } from "./c.js";\nexport type A = { c?: C };\n',
      "apps/server/src/db/b.ts": 'import type { A } from "./a.js";\nexport type B = { a?: A };\n',
      "apps/server/src/db/c.ts": 'import type { B } from "./b.js";\nexport type C = { b?: B };\n',
    },
    rule: "lint/suspicious/noImportCycles",
  },
  {
    name: "a service reaching up into http/",
    files: {
      "apps/server/src/http/route.ts": "export const route = 1;\n",
      "apps/server/src/services/a.ts": 'import { route } from "../http/route.js";\nexport const a = route;\n',
    },
    rule: "lint/style/noRestrictedImports",
  },
  {
    name: "a service importing another service",
    files: {
      "apps/server/src/services/b.ts": "export const b = () => 1;\n",
      "apps/server/src/services/a.ts": 'import { b } from "./b.js";\nexport const a = () => b();\n',
    },
    rule: "lint/style/noRestrictedImports",
  },
  {
    name: "a service importing another service's types",
    files: {
      "apps/server/src/services/b.ts": "export type B = { b: number };\n",
      "apps/server/src/services/a.ts": 'import type { B } from "./b.js";\nexport type A = { b?: B };\n',
    },
    rule: "lint/style/noRestrictedImports",
  },
  {
    name: "a service importing the ports and the shared SQL of db/",
    files: {
      "apps/server/src/services/ports.ts": 'export const QUEUE = "queue";\n',
      "apps/server/src/db/modpacks.ts": "export const loadModpack = () => 1;\n",
      "apps/server/src/services/a.ts":
        'import { loadModpack } from "../db/modpacks.js";\nimport { QUEUE } from "./ports.js";\nexport const a = () => [loadModpack(), QUEUE];\n',
    },
    rule: null,
  },
  {
    name: "a db/ module importing a service",
    files: {
      "apps/server/src/services/modpacks.ts": "export const modpacksService = () => 1;\n",
      "apps/server/src/db/a.ts":
        'import { modpacksService } from "../services/modpacks.js";\nexport const a = () => modpacksService();\n',
    },
    rule: "lint/style/noRestrictedImports",
  },
  {
    name: "a db/ module importing the queue ports",
    files: {
      "apps/server/src/services/ports.ts": 'export const QUEUE = "queue";\n',
      "apps/server/src/db/a.ts": 'import { QUEUE } from "../services/ports.js";\nexport const a = QUEUE;\n',
    },
    rule: null,
  },
  {
    name: "a parser reaching into the database layer",
    files: {
      "apps/server/src/db/database.ts": "export const db = 1;\n",
      "apps/server/src/workshop/parse.ts": 'import { db } from "../db/database.js";\nexport const parse = db;\n',
    },
    rule: "lint/style/noRestrictedImports",
  },
  {
    name: "modules importing in one direction only",
    files: {
      "apps/server/src/db/a.ts": 'import { b } from "./b.js";\nexport const a = () => b();\n',
      "apps/server/src/db/b.ts": "export const b = () => 1;\n",
    },
    rule: null,
  },
];

let workDir: string;
let config: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "lint-rules-"));
  // The trees live outside the repository, so the copy drops what ties the configuration to it.
  const { $schema: _schema, vcs: _vcs, ...rules } = JSON.parse(await readFile(join(root, "biome.json"), "utf8"));
  config = JSON.stringify(rules);
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function lint(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(biome, ["lint", "--max-diagnostics=50", "."], { cwd: dir }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe("pnpm lint's rules", () => {
  it.each(cases)("$name", async ({ name, files, rule }) => {
    const dir = join(workDir, name.replaceAll(/\W+/g, "-"));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "biome.json"), config);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const { code, output } = await lint(dir);
    if (rule === null) {
      expect(output).not.toMatch(/lint\//);
      expect(code).toBe(0);
    } else {
      expect(output).toContain(rule);
      expect(code).not.toBe(0);
    }
  });
});
