import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Debian's Chromium, or the binary `CHROMIUM_PATH` names. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** The flags every browser test starts Chromium with: nothing in the background may reach for the (closed) network. */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Where browser tests save their screenshots (git-ignored). */
export const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test-artifacts");

/** True when Chromium is there; otherwise says, once per test file, that the file's tests are skipped and why. */
export function chromiumAvailable(testFile: string): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  console.warn(
    `${testFile} SKIPPED: no Chromium at ${CHROMIUM_PATH} ` +
      "(install Debian's `chromium` package, or set CHROMIUM_PATH to a Chromium binary)",
  );
  return false;
}
