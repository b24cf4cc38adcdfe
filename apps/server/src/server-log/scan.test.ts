/**
 * The scanner against real server logs: every log under `test/fixtures/server-logs/` is an excerpt
 * of a log a server printed, as published in the issue thread or repository that
 * `test/fixtures/server-logs/SOURCES.md` names for it (Renegade-Master/zomboid-dedicated-server
 * #37, TEHE-Studios/ExpandedHelicopterEvents #68, #86, #109, #194, #398, ValveSoftware/steam-for-linux
 * #12531, pelican-eggs #1501, pufferpanel #1499, among others). The other forms a log arrives in
 * (`\r\n`, `docker compose logs`, cut short, an error after the start) are those logs, changed only
 * in that way.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type LogFindingCode, scanLog } from "./scan.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../../test/fixtures/server-logs/${name}`, import.meta.url), "utf8");

interface Expected {
  up: boolean;
  /** The findings' codes in log order, each with what it names. */
  findings: [LogFindingCode, string | undefined][];
  modsLoaded?: string[];
}

const table: { log: string; expected: Expected }[] = [
  { log: "b41-clean-start-gabrielotero-pz-server.log", expected: { up: true, findings: [] } },
  { log: "b41-clean-start-gabriel712-zomboidrpserver.log", expected: { up: true, findings: [] } },
  {
    log: "b41-clean-start-jrx-sjg-zehioidserver.log",
    expected: {
      up: true,
      findings: [],
      modsLoaded: [
        "EQUIPMENT_UI",
        "BB_CommonSense",
        "MoreDescriptionForTraits4166",
        "Named Literature",
        "tsarslib",
        "TMC_TrueActions",
        "TrueActionsDancing",
        "TrueActions4Talking",
      ],
    },
  },
  { log: "b42-clean-start-pepenotti-zomboid-server.log", expected: { up: true, findings: [] } },
  {
    log: "b41-missing-mod-ehe-194.log",
    expected: {
      up: false,
      findings: [["mod-not-found", "ExpandedHelicopterEvents"]],
      modsLoaded: ["errorMagnifier", "EasyConfigChucked"],
    },
  },
  {
    log: "b41-missing-mod-jrx-sjg-zehioidserver.log",
    expected: {
      up: true,
      findings: [
        "EQUIPMENT_UI",
        "BB_CommonSense",
        "MoreDescriptionForTraits4166",
        "Named Literature",
        "TMC_TrueActions",
        "TrueActionsDancing",
        "TrueActions4Talking",
        "tsarslib",
      ].map((id) => ["mod-not-found", id] as [LogFindingCode, string]),
    },
  },
  {
    log: "b42-missing-mod-wengera-zomboid-mod-nutrition.log",
    expected: { up: false, findings: [["mod-not-found", "NoSuchModHere"]] },
  },
  {
    log: "b42-workshop-download-failed-steam-for-linux-12531.log",
    expected: {
      up: false,
      findings: [
        ["workshop-download-failed", "3431734923"],
        ["not-started", undefined],
      ],
    },
  },
  {
    log: "b41-lua-error-ehe-86.log",
    expected: { up: false, findings: [["lua-error", "Expanded Helicopter Events"]] },
  },
  {
    log: "b41-lua-error-ehe-68.log",
    expected: { up: false, findings: [["lua-error", "ExpandedHelicopter01f_ShadowSystem.lua"]] },
  },
  { log: "b41-lua-require-failed-ehe-109.log", expected: { up: false, findings: [["lua-error", "2458631365"]] } },
  { log: "b41-crash-before-start-bramenn-pz.log", expected: { up: false, findings: [["not-started", undefined]] } },
  {
    log: "b41-crash-before-start-pelican-eggs-1501.log",
    expected: { up: false, findings: [["not-started", undefined]] },
  },
  { log: "b42-admin-prompt-blocks-start-pepenotti-zomboid-server.log", expected: { up: false, findings: [] } },
  { log: "b42-pzexe-jvm-pufferpanel-1499.log", expected: { up: false, findings: [] } },
  { log: "b42-steamcmd-install-failed-pepenotti-zomboid-server.log", expected: { up: false, findings: [] } },
  { log: "unknown-docker-steamcmd-exit-pepecitron-12.log", expected: { up: false, findings: [] } },
  { log: "unknown-docker-entrypoint-renegade-master-68.log", expected: { up: false, findings: [] } },
];

/** What a finding names: the id, the workshop item, the mod title or the Lua file. */
const named = (finding: ReturnType<typeof scanLog>["findings"][number]) =>
  finding.platformModId ?? finding.workshopId ?? finding.modTitle ?? finding.luaFile;

/** The forms a log arrives in, each made from the published log. */
const forms: { name: string; change: (log: string) => string }[] = [
  { name: "as published", change: (log) => log },
  { name: "with \\r\\n endings", change: (log) => log.replaceAll("\n", "\r\n") },
  { name: "as docker compose logs print it", change: (log) => log.replace(/^/gm, "pz-server-1  | ") },
  {
    name: "as docker logs --timestamps prints it",
    change: (log) => log.replace(/^/gm, "2026-11-27T12:00:00.123456789Z "),
  },
];

describe("scanLog on real server logs", () => {
  for (const { log, expected } of table) {
    // A log `docker compose logs` printed already has its prefix; docker never adds a second.
    const applicable = fixture(log).includes("  | ") ? forms.slice(0, 2) : forms;
    it.each(applicable)(`${log}, $name`, ({ change }) => {
      const scan = scanLog(change(fixture(log)));
      expect(scan.up).toBe(expected.up);
      expect(scan.findings.map((finding) => [finding.code, named(finding)])).toEqual(expected.findings);
      if (expected.modsLoaded) expect(scan.modsLoaded).toEqual(expected.modsLoaded);
      for (const finding of scan.findings) {
        expect(finding.line).toBeGreaterThan(0);
        expect(finding.text.length).toBeLessThanOrEqual(500);
        expect(finding.severity).toBe(finding.code === "lua-error" ? "warning" : "error");
      }
    });
  }

  it("reads a log cut short before the server was up as neither up nor failed", () => {
    const log = fixture("b41-clean-start-gabrielotero-pz-server.log");
    const scan = scanLog(log.slice(0, log.indexOf("*** SERVER STARTED")));
    expect(scan).toMatchObject({ up: false, findings: [] });
  });

  it("ignores what happens once the server is up", () => {
    const start = fixture("b41-clean-start-gabrielotero-pz-server.log");
    const after = [fixture("b41-missing-mod-ehe-194.log"), fixture("b41-lua-error-ehe-86.log")].join("");
    const scan = scanLog(start + after);
    expect(scan).toMatchObject({ up: true, findings: [] });
  });

  it("lets a server that comes up after an exception count as up, the exception not a failed start", () => {
    const crash = fixture("b41-crash-before-start-pelican-eggs-1501.log");
    const start = fixture("b41-clean-start-gabrielotero-pz-server.log");
    expect(scanLog(crash + start)).toMatchObject({ up: true, findings: [] });
  });

  it("keeps one finding per missing id, per failed item and per Lua trace, however often the log repeats them", () => {
    const log = fixture("b41-missing-mod-ehe-194.log");
    const scan = scanLog(log.repeat(50));
    expect(scan.findings).toHaveLength(1);
    expect(scan.lines).toBe(log.split("\n").length * 50 - 50);
  });

  it("keeps a finding's text and names whole characters when it cuts them", () => {
    const id = `${"x".repeat(199)}😀tail`;
    const scan = scanLog(`WARN : Mod         , 1> 1> required mod "${id}" not found${"😀".repeat(400)}\n`);
    const [finding] = scan.findings;
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    expect(finding?.platformModId).toBe("x".repeat(199));
    expect(finding?.text.length).toBeLessThanOrEqual(500);
    expect(lone.test(finding?.text ?? "")).toBe(false);
  });

  it("reads lines built to make a regular expression backtrack, and lines far longer than any game line", () => {
    const hostile = [
      `LOG : Mod , 1>${" ".repeat(20_000)}`,
      `LOG : Mod f:0 st:1${" ".repeat(20_000)}x`,
      `ERROR: General , 1> ${"a.".repeat(10_000)}`,
      `LOG  : Lua         , 1> 1> Loading: ${"/".repeat(20_000)}`,
    ];
    const scan = scanLog(`${hostile.join("\n").repeat(20)}\n`);
    expect(scan).toMatchObject({ up: false, findings: [], modsLoaded: [] });
  });
});
