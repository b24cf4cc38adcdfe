/**
 * The `env` form per server image, run through the kind of step each image's own start script runs,
 * and compared with the `json` form's lists. The steps follow these scripts, each read at the commit
 * the service names (`SERVER_IMAGES` in `src/server-file/formats.ts`):
 * - Danixu/project-zomboid-server-docker `scripts/entry.sh` @ 4fdb84b9cbed: `sed -i` with
 *   `s/Mods=.*` and `s/WorkshopItems=.*`, the variable as the replacement;
 * - PepeCitron/projectzomboid-server `entry.sh` @ a061c9ec719e: `updateConfigValue`, a `sed -i`
 *   whose replacement is the value with every `&` escaped by bash's `${2//&/\\&}` (run by the
 *   image's bash 5.1, which `shopt -u patsub_replacement` gives bash 5.2), once the `.ini` exists;
 * - Renegade-Master/zomboid-dedicated-server `src/edit_server_config.py` @ 983853e53a17: Python's
 *   `RawConfigParser` with case-keeping keys, `[ServerConfig]` put in front, written with
 *   `space_around_delimiters=False`;
 * - indifferentbroccoli/projectzomboid-server-docker `scripts/compile-settings.sh` @ b29c28c6dc00:
 *   `envsubst` over a template, its output through an unquoted here-document.
 * Docker's `--env-file` hands each value over verbatim (docker/cli `opts/envfile.go`): a line is
 * `KEY=value` split at the first `=`, `#` lines and blank lines skipped.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type ServerImage, serverImages } from "@modpack/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertMod, insertModpack } from "./support/rows.js";
import { startTestService, type TestService } from "./support/service.js";
import { type SignedIn, signIn } from "./support/users.js";

const run = promisify(execFile);

let service: TestService;
let owner: SignedIn;
let work: string;

beforeAll(async () => {
  service = await startTestService();
  owner = await signIn(service, { name: "Owner" });
  work = await mkdtemp(join(tmpdir(), "server-images-"));
});
afterAll(async () => {
  await service.stop();
  await rm(work, { recursive: true, force: true });
});

/** In-game ids and map folders chosen so that each breaks one rule of some start step. */
const HOSTILE_MODS: { name: string; ids: string[]; maps?: string[] }[] = [
  { name: "case changes after \\", ids: ["UndeadSurvivor", "lights", "EasyConfig", "upper", "Lower"] },
  { name: "a bell and a newline after \\", ids: ["alarm", "nightVision", "tabs"] },
  { name: "a backslash inside", ids: ["Back\\slash", "Trailing\\", "\\\\Doubled"] },
  { name: "the matched text", ids: ["Tom&Jerry", "&", "\\&"] },
  { name: "the sed delimiter", ids: ["Maps/Extra", "/", "a\\/b"] },
  { name: "group references", ids: ["\\1group", "\\0"] },
  { name: "spaces", ids: ["Mod With Spaces", "Two  Spaces"], maps: ["Map With Spaces"] },
  { name: "non-ASCII", ids: ["Ünïcödé_Mod", "日本語モッド", "Emoji🧟"], maps: ["Ciudad Añil"] },
  { name: "shell and template characters", ids: ["$HOME", `\${MODS}`, "`id`", '"quoted"', "'single'", "%s%%"] },
  { name: "ini characters", ids: ["#hash", "[Section]", "key:value"], maps: ["Map&Town", "Town/East", "\\Town"] },
  { name: "a plain one", ids: ["Brita", "Brita_2"], maps: ["Muldraugh, KY"] },
];

let workshopCounter = 4_300_000_000;

async function hostilePack(): Promise<string> {
  const modIds: string[] = [];
  for (const mod of HOSTILE_MODS) {
    workshopCounter += 1;
    const inserted = await insertMod(service, {
      workshopId: String(workshopCounter),
      name: mod.name,
      platformModIds: mod.ids,
      mapFolders: mod.maps ?? [],
    });
    modIds.push(inserted.id);
  }
  return insertModpack(service, { ownerId: owner.userId, modIds });
}

/** The variables of an env file as Docker's `--env-file` reads them. */
function dockerEnvFile(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trimStart();
    if (line === "" || line.startsWith("#")) continue;
    const equals = line.indexOf("=");
    expect(equals, `a line without =: ${line}`).toBeGreaterThan(0);
    variables[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return variables;
}

/** The lines an image's start step writes, by key, read back from the file it wrote. */
type Written = Partial<Record<"Mods" | "WorkshopItems" | "Map", string>>;

/** A `servertest.ini` as a server has it before the step runs. */
const EXISTING_INI = "PVP=true\nMods=OldMod\nWorkshopItems=1\nMap=Muldraugh, KY\nPublic=false\n";

function readWritten(ini: string): Written {
  const written: Written = {};
  for (const line of ini.split("\n")) {
    const equals = line.indexOf("=");
    const key = line.slice(0, equals);
    if (key === "Mods" || key === "WorkshopItems" || key === "Map") written[key] = line.slice(equals + 1);
  }
  return written;
}

let stepCounter = 0;

async function scratchFile(name: string, content: string): Promise<string> {
  stepCounter += 1;
  const path = join(work, `${stepCounter}-${name}`);
  await writeFile(path, content);
  return path;
}

const STEPS_DIR = fileURLToPath(new URL("./fixtures/image-steps/", import.meta.url));

/** Runs one of `fixtures/image-steps` on a fresh ini, with `variables` in its environment. */
async function shellStep(
  file: string,
  variables: Record<string, string>,
  env: Record<string, string>,
): Promise<Written> {
  const ini = await scratchFile("servertest.ini", EXISTING_INI);
  await run("bash", [join(STEPS_DIR, file)], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SERVER_INI: ini, ...env, ...variables },
  });
  return readWritten(await readFile(ini, "utf8"));
}

/** The start step of each image, given the variables Docker set from the env file, in each setting it may run in. */
const STEPS: Record<ServerImage, { name: string; step: (variables: Record<string, string>) => Promise<Written> }[]> = {
  danixu: ["C", "C.UTF-8"].map((locale) => ({
    name: `GNU sed, LC_ALL=${locale}`,
    step: (variables) => shellStep("danixu.sh", variables, { LC_ALL: locale }),
  })),
  pepecitron: [
    { LC_ALL: "C", PATSUB: "-u" },
    { LC_ALL: "C.UTF-8", PATSUB: "-u" },
    { LC_ALL: "C.UTF-8", PATSUB: "-s" },
  ].map((env) => ({
    name: `bash and GNU sed, LC_ALL=${env.LC_ALL}, patsub_replacement ${env.PATSUB}`,
    step: (variables) => shellStep("pepecitron.sh", variables, env),
  })),
  "renegade-master": [
    {
      name: "Python RawConfigParser",
      step: async (variables) => {
        const ini = await scratchFile("servertest.ini", EXISTING_INI);
        for (const [key, name] of [
          ["Mods", "MOD_NAMES"],
          ["Map", "MAP_NAMES"],
          ["WorkshopItems", "MOD_WORKSHOP_IDS"],
        ] as const) {
          await run("python3", [join(STEPS_DIR, "renegade-master.py"), ini, key, variables[name] ?? ""], {
            env: { ...process.env, PYTHONUTF8: "1" },
          });
        }
        return readWritten(await readFile(ini, "utf8"));
      },
    },
  ],
  indifferentbroccoli: [
    {
      name: "envsubst into a template",
      step: async (variables) => {
        const template = await scratchFile(
          "settings.ini.template",
          "PVP=true\nMods=$MODS\nMap=$MAP\nWorkshopItems=$WORKSHOP_ITEMS\n",
        );
        return shellStep("indifferentbroccoli.sh", variables, { LC_ALL: "C.UTF-8", TEMPLATE: template });
      },
    },
  ],
};

/** The lines each image writes from variables; the others it leaves or builds itself. */
const WRITES: Record<ServerImage, (keyof Written)[]> = {
  danixu: ["Mods", "WorkshopItems"],
  pepecitron: ["Mods", "WorkshopItems"],
  "renegade-master": ["Mods", "WorkshopItems", "Map"],
  indifferentbroccoli: ["Mods", "WorkshopItems", "Map"],
};

describe("GET /modpacks/{id}/server-file?format=env&image=…", () => {
  const versions = [
    { query: "version=41x" },
    { query: "version=42x" },
    { query: "version=42x&idForm=workshop" },
    { query: "version=42x&idForm=plain" },
  ];

  it.each(serverImages.flatMap((image) => versions.map((version) => ({ image, ...version }))))(
    "$image, $query: the image's own start step writes the json form's lists",
    async ({ image, query }) => {
      const id = await hostilePack();
      const json = await service.app.inject({
        url: `/modpacks/${id}/server-file?${query}&format=json`,
        headers: owner.headers,
      });
      expect(json.statusCode, json.body).toBe(200);
      const lists = json.json() as { mods: string[]; workshopItems: string[]; map: string[] };
      // Every rule is broken by some id the file writes.
      const mods = lists.mods.join(";");
      for (const needle of ["\\U", "\\l", "\\E", "\\a", "\\n", "&", "/", " ", "Ü", "\\1", "$"]) {
        if (query === "version=41x" || query.endsWith("plain")) {
          if (!needle.startsWith("\\")) expect(mods).toContain(needle);
        } else {
          expect(mods).toContain(needle);
        }
      }

      const env = await service.app.inject({
        url: `/modpacks/${id}/server-file?${query}&format=env&image=${image}`,
        headers: owner.headers,
      });
      expect(env.statusCode, env.body).toBe(200);
      expect(env.headers["modpack-check-errors"]).toBe(json.headers["modpack-check-errors"]);
      const variables = dockerEnvFile(env.body);
      const expected: Written = {
        Mods: mods,
        WorkshopItems: lists.workshopItems.join(";"),
        Map: lists.map.join(";"),
      };
      for (const { name, step } of STEPS[image]) {
        const written = await step(variables);
        for (const key of WRITES[image]) expect(written[key], `${name}: ${key}=`).toBe(expected[key]);
      }
    },
  );

  it("names only the variables each image reads, and the generic three without an image", async () => {
    const id = await hostilePack();
    const table: { image: ServerImage | null; names: string[] }[] = [
      { image: null, names: ["MODS", "WORKSHOP_ITEMS", "MAP"] },
      { image: "danixu", names: ["MOD_IDS", "WORKSHOP_IDS"] },
      { image: "pepecitron", names: ["MOD_NAMES", "MOD_WORKSHOP_IDS"] },
      { image: "renegade-master", names: ["MOD_NAMES", "MOD_WORKSHOP_IDS", "MAP_NAMES"] },
      { image: "indifferentbroccoli", names: ["MODS", "WORKSHOP_ITEMS", "MAP"] },
    ];
    const tags = new Set<string>();
    for (const { image, names } of table) {
      const url = `/modpacks/${id}/server-file?version=42x&format=env${image ? `&image=${image}` : ""}`;
      const response = await service.app.inject({ url, headers: owner.headers });
      expect(response.statusCode).toBe(200);
      expect(Object.keys(dockerEnvFile(response.body))).toEqual(names);
      const etag = response.headers.etag as string;
      tags.add(etag);
      const again = await service.app.inject({ url, headers: { ...owner.headers, "if-none-match": etag } });
      expect(again.statusCode).toBe(304);
      expect(again.headers["modpack-check-errors"]).toBe(response.headers["modpack-check-errors"]);
    }
    expect(tags.size).toBe(table.length);
  });

  it("without an image hands the values over verbatim", async () => {
    const id = await hostilePack();
    const json = (
      await service.app.inject({ url: `/modpacks/${id}/server-file?version=42x&format=json`, headers: owner.headers })
    ).json() as { mods: string[]; workshopItems: string[]; map: string[] };
    const env = await service.app.inject({
      url: `/modpacks/${id}/server-file?version=42x&format=env`,
      headers: owner.headers,
    });
    expect(dockerEnvFile(env.body)).toEqual({
      MODS: json.mods.join(";"),
      WORKSHOP_ITEMS: json.workshopItems.join(";"),
      MAP: json.map.join(";"),
    });
  });

  it("refuses an unknown image, and an id form a 41x file cannot have, with 400", async () => {
    const id = await insertModpack(service, { ownerId: owner.userId });
    for (const query of [
      "version=42x&format=env&image=other",
      "version=42x&format=env&image=",
      "version=41x&idForm=workshop",
      "version=41x&idForm=backslash",
      "version=42x&idForm=slash",
    ]) {
      const response = await service.app.inject({
        url: `/modpacks/${id}/server-file?${query}`,
        headers: owner.headers,
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.message).toBeTypeOf("string");
    }
  });
});
