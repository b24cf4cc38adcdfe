import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nodeFlags } from "../src/node-flags.js";

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = path.resolve(serverRoot, "../..");

/** The node command lines that start the service, as written where they cannot import the list. */
function writtenCommands(): [string, string[]][] {
  const scripts = (
    JSON.parse(readFileSync(path.join(serverRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const dockerfile = readFileSync(path.join(repoRoot, "Dockerfile"), "utf8");
  const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  return [
    ["package.json start", (scripts.start ?? "").split(" ")],
    ["package.json start:worker", (scripts["start:worker"] ?? "").split(" ")],
    ["Dockerfile CMD", cmd ? (JSON.parse(cmd) as string[]) : []],
  ];
}

describe("the service's node flags", () => {
  it.each(writtenCommands())("%s runs node with exactly the flags of src/node-flags.ts", (_where, command) => {
    expect(command[0]).toBe("node");
    const entry = command.indexOf("dist/main.js");
    expect(entry).toBeGreaterThan(0);
    expect(command.slice(1, entry)).toEqual([...nodeFlags]);
  });
});
