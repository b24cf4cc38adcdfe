/**
 * The current server file in its other forms: `KEY=value` lines for Docker's `--env-file`.
 * Pure functions only.
 */

import type { ServerFileLines } from "./render.js";

/**
 * The variables the most used Project Zomboid server images read their mod lists from, each with
 * the value it takes: the generic names (which indifferentbroccoli/projectzomboid-server-docker
 * reads too), Danixu/project-zomboid-server-docker's, and Renegade-Master/zomboid-dedicated-server's.
 */
export const ENV_VARIABLES: ReadonlyArray<readonly [name: string, value: keyof ServerFileLines]> = [
  ["MODS", "mods"],
  ["WORKSHOP_ITEMS", "workshopItems"],
  ["MAP", "map"],
  ["MOD_IDS", "mods"],
  ["WORKSHOP_IDS", "workshopItems"],
  ["MOD_NAMES", "mods"],
  ["MOD_WORKSHOP_IDS", "workshopItems"],
  ["MAP_NAMES", "map"],
];

/**
 * An env file as Docker's `--env-file` reads it: the header as `#` comment lines, then one
 * `KEY=value` line per variable. Docker takes a value verbatim (no quotes, no escapes), so the
 * values are the server file's own (`;` separated, 42x ids keeping their `\`); the renderer's rule
 * already keeps line breaks out of them.
 */
export function renderEnvFile(header: string[], lines: ServerFileLines): string {
  const variables = ENV_VARIABLES.map(([name, value]) => `${name}=${lines[value].join(";")}`);
  return `${[...header, ...variables].join("\n")}\n`;
}
