/**
 * Reads a Project Zomboid dedicated server's console log, line by line, in constant memory: the
 * in-game mods it loaded, whether it reached the line that says it is up, and what went wrong on
 * the way. Pure: the caller feeds it lines and asks for the result.
 *
 * The line forms it reads (see `test/fixtures/server-logs/SOURCES.md` for the real logs they come
 * from):
 * - Build 41: `LOG  : Mod         , 1688382451804> 356,461,732> loading errorMagnifier` (level,
 *   category, epoch milliseconds, a counter whose separators follow the locale, then the message);
 * - Build 42: `LOG  : Network      f:0 st:34,907,676> *** SERVER STARTED ****`, earlier 42 builds
 *   `f:0, t:1767435099494, st:1,906,473,074>`, warnings and errors with ` at Class.method   >`;
 * - the debug-log file form: the same lines after `[27-05-23 18:47:09.714] `, each message ending
 *   in an added `.`;
 * - `docker logs` / `docker compose logs` prefixes (`name  | `, ISO timestamps), `\r\n` endings,
 *   and lines of other loggers (the JVM, steamcmd, the image's own script) in between, which are
 *   read only for uncaught exceptions and Lua stack traces.
 */

export type LogFindingCode = "mod-not-found" | "workshop-download-failed" | "not-started" | "lua-error";

export interface LogFinding {
  code: LogFindingCode;
  severity: "error" | "warning";
  /** The line's number in the log, from 1. */
  line: number;
  /** The line as the log printed it (its prefixes removed), cut to `MAX_TEXT`. */
  text: string;
  /** The in-game id it names (`mod-not-found`). */
  platformModId?: string;
  /** The workshop item it names: a failed download, a Lua file under a workshop folder. */
  workshopId?: string;
  /** The mod title a Lua stack trace names (`| MOD: <title>`). */
  modTitle?: string;
  /** The Lua file a stack trace names first. */
  luaFile?: string;
}

export interface LogScan {
  /** The in-game ids the server loaded, in the order it loaded them. */
  modsLoaded: string[];
  /** Whether the log reached the line that says the server is up. */
  up: boolean;
  findings: LogFinding[];
  lines: number;
}

/** A finding's text is cut to this many characters. */
export const MAX_TEXT = 500;
/** A line is read up to this many characters: no game line is longer, and no regular expression then sees more. */
export const MAX_LINE = 8_192;
/** Ids, titles and file names the log names are kept up to this many characters. */
const MAX_NAME = 200;
/** Bounds that keep the memory of one scan flat, however long or hostile the log. */
const MAX_MODS = 5_000;
const MAX_FINDINGS = 200;
const MAX_LUA_FILES = 20_000;

const DOCKER_PREFIX = /^[A-Za-z0-9][\w.-]*\s+\|\s?/;
const DOCKER_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s/;
const FILE_PREFIX = /^\[\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\]\s?/;
const UNCAUGHT = /^Exception in thread "[^"]*"\s*/;
/**
 * A game line of either build: level, category, then Build 41's `, <ms>> <counter>>` or Build 42's
 * `f:<n>[, t:<ms>][,] st:<counter>[ at <caller>]>`, then the message.
 */
// A counter is digit groups with one separator between them (`68,346,466`, `1.888.314`, `8 800 813`):
// no run of spaces can be read two ways, so a hostile line costs time in proportion to its length.
const GAME_LINE =
  /^(LOG|WARN|ERROR|DEBUG|TRACE)\s*:\s*(\w+)\s+(?:,\s*\d+>(?:\s*\d+(?:[.,\u00a0\u202f ]\d+)*>)?|f:\d+,?(?:\s*t:\d+,?)?\s*st:\d+(?:[.,\u00a0\u202f ]\d+)*(?:\s+at\s+[^>]*)?>)\s?(.*)$/;
const SERVER_UP = /^\*\*\* SERVER STARTED \*{3,4}$/;
// In-game ids may hold spaces (`loading Named Literature`).
const LOADING_MOD = /^loading (.+)$/;
const REQUIRED_MOD = /required mod "([^"]+)" not found/;
const DOWNLOAD_FAILED = /^Workshop: (?:onItemNotDownloaded itemID=(\d+)|item state \S+ -> Fail ID=(\d+))/;
const EXCEPTION = /(?:Exception|Error)\b/;
const STACK_TRACE = /^STACK TRACE\.?$/;
const LUA_FRAME = /^function: .*? -- file: (\S+?\.lua) line # \d+(?: \| MOD: (.*?))?\.?$/;
const WORKSHOP_FOLDER = /\/108600\/(\d+)\/mods\//;
const REQUIRE_FAILED = /require\("([^"]+)"\) failed/;

/** A line with the prefixes of docker, its timestamps and the debug-log file removed. */
function unwrap(raw: string): { text: string; fromFile: boolean } {
  let text = raw.length > MAX_LINE ? whole(raw.slice(0, MAX_LINE)) : raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  // A NUL can be neither stored nor shown: it is read as a replacement character.
  if (text.includes("\u0000")) text = text.replaceAll("\u0000", "\uFFFD");
  text = text.replace(DOCKER_PREFIX, "").replace(DOCKER_TIMESTAMP, "");
  const fromFile = FILE_PREFIX.test(text);
  if (fromFile) text = text.replace(FILE_PREFIX, "");
  return { text, fromFile };
}

/** The message of a game line: the file form's added `.` removed. */
function messageOf(message: string, fromFile: boolean): string {
  return fromFile && message.endsWith(".") ? message.slice(0, -1) : message;
}

/** A string cut where it ends in half a character (a high surrogate): Postgres refuses one stored alone. */
const whole = (text: string) => (/[\uD800-\uDBFF]$/.test(text) ? text.slice(0, -1) : text);

const cut = (text: string) => (text.length > MAX_TEXT ? `${whole(text.slice(0, MAX_TEXT - 1))}…` : text);
const name = (text: string) => whole(text.slice(0, MAX_NAME));

/** A scanner: feed it the log's lines in order, then read `result()`. */
export function createLogScanner() {
  let lines = 0;
  let up = false;
  const loaded = new Set<string>();
  const findings: LogFinding[] = [];
  const seen = new Set<string>();
  /** Lua files loaded from workshop folders: file name → workshop id. */
  const luaFiles = new Map<string, string>();
  /** The first uncaught exception before the server was up: `not-started` unless it comes up. */
  let crash: LogFinding | undefined;
  /** The workshop item of the Lua file loaded last: a failed `require` is that file's. */
  let loadingFrom: string | undefined;
  /** A Lua stack trace being read: its first frame. */
  let trace: { line: number; text: string; file?: string; title?: string } | undefined;
  /** Game lines since a Lua stack trace ended: the exception that follows it is the trace's own. */
  let sinceTrace = Number.POSITIVE_INFINITY;

  const add = (finding: LogFinding, key: string) => {
    if (seen.has(key) || findings.length >= MAX_FINDINGS) return;
    seen.add(key);
    findings.push({ ...finding, text: cut(finding.text) });
  };

  const closeTrace = () => {
    if (!trace) return;
    const workshopId = trace.file ? luaFiles.get(trace.file) : undefined;
    if (!up) {
      add(
        {
          code: "lua-error",
          severity: "warning",
          line: trace.line,
          text: trace.text,
          ...(workshopId ? { workshopId } : {}),
          ...(trace.title ? { modTitle: trace.title } : {}),
          ...(trace.file ? { luaFile: trace.file } : {}),
        },
        `lua|${trace.title ?? ""}|${trace.file ?? ""}`,
      );
    }
    trace = undefined;
    sinceTrace = 0;
  };

  const exception = (line: number, text: string) => {
    // The exception a Lua stack trace is followed by is that error's, not the server's.
    if (sinceTrace <= 2 || up || crash) return;
    crash = { code: "not-started", severity: "error", line, text: cut(text) };
  };

  return {
    line(raw: string): void {
      lines += 1;
      let { text, fromFile } = unwrap(raw);
      if (UNCAUGHT.test(text)) {
        exception(lines, text);
        text = text.replace(UNCAUGHT, "");
      }
      const game = GAME_LINE.exec(text);
      if (!game) {
        if (STACK_TRACE.test(text.trim())) {
          closeTrace();
          trace = { line: lines, text: text.trim() };
          return;
        }
        const frame = LUA_FRAME.exec(text.trim());
        if (trace && frame) {
          if (!trace.file) Object.assign(trace, { line: lines, text: text.trim(), file: name(frame[1]!) });
          if (!trace.title && frame[2]) trace.title = name(frame[2].trim());
        }
        return;
      }
      closeTrace();
      sinceTrace += 1;
      const [, level, category, rawMessage = ""] = game;
      const message = messageOf(rawMessage.trim(), fromFile);
      if (SERVER_UP.test(message)) {
        up = true;
        crash = undefined;
        return;
      }
      // What happens once the server is up does not change the start's outcome.
      if (up) return;
      if (category === "Mod") {
        const loading = LOADING_MOD.exec(message);
        if (loading && loaded.size < MAX_MODS) loaded.add(name(loading[1]!));
      }
      const required = REQUIRED_MOD.exec(message);
      if (required) {
        add(
          { code: "mod-not-found", severity: "error", line: lines, text: message, platformModId: name(required[1]!) },
          `missing|${required[1]}`,
        );
        return;
      }
      const failed = DOWNLOAD_FAILED.exec(message);
      if (failed) {
        const workshopId = failed[1] ?? failed[2]!;
        add(
          { code: "workshop-download-failed", severity: "error", line: lines, text: message, workshopId },
          `download|${workshopId}`,
        );
        return;
      }
      if (category === "Lua" && message.startsWith("Loading: ")) {
        const folder = WORKSHOP_FOLDER.exec(message);
        loadingFrom = folder?.[1];
        const file = name(message.slice(message.lastIndexOf("/") + 1));
        if (folder && file.endsWith(".lua") && luaFiles.size < MAX_LUA_FILES) luaFiles.set(file, folder[1]!);
      }
      const requireFailed = category === "Lua" && level !== "LOG" ? REQUIRE_FAILED.exec(message) : null;
      if (requireFailed) {
        add(
          {
            code: "lua-error",
            severity: "warning",
            line: lines,
            text: message,
            ...(loadingFrom ? { workshopId: loadingFrom } : {}),
          },
          `require|${loadingFrom ?? requireFailed[1]}`,
        );
        return;
      }
      if (level === "ERROR" && EXCEPTION.test(message)) exception(lines, message);
    },

    result(): LogScan {
      closeTrace();
      const all = crash && !up ? [...findings, crash] : findings;
      return { modsLoaded: [...loaded], up, findings: all.sort((a, b) => a.line - b.line), lines };
    },
  };
}

/** Scans a whole log held as text (tests, small logs); the service feeds a stream line by line. */
export function scanLog(text: string): LogScan {
  const scanner = createLogScanner();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) scanner.line(line);
  return scanner.result();
}
