/**
 * The current server file in its other forms: `KEY=value` lines for Docker's `--env-file`, generic
 * or encoded for one server image's start step. Pure functions only.
 */

import type { ServerImage } from "@modpack/contract";
import type { ServerFileLines } from "./render.js";

/** Turns a line's value into what an image's start step must be given to write that value. */
type Encode = (value: string) => string;

const verbatim: Encode = (value) => value;

/**
 * A GNU `sed` replacement that writes `value` as it is: in the replacement of `s/…/…/`, sed reads
 * `\` as an escape (`\U`, `\L`, `\u`, `\l`, `\E` change case, `\a` is a bell, `\n` a newline), `&`
 * as the matched text, and `/` ends the expression; each of them escaped with `\` is itself.
 */
const sedReplacement: Encode = (value) => value.replace(/[\\&/]/g, "\\$&");

/**
 * The same for a start step that escapes every `&` itself before handing the value to `sed`
 * (`${2//&/\\&}`): escaping it here too would write `\` and then the matched text.
 */
const sedReplacementAfterAmpersands: Encode = (value) => value.replace(/[\\/]/g, "\\$&");

export interface ImageVariable {
  name: string;
  line: keyof ServerFileLines;
  encode: Encode;
}

export interface ServerImageSpec {
  /** The image's public repository, `owner/name`. */
  repository: string;
  /** The commit of its start script that the encoding follows. */
  commit: string;
  /** How the start step writes the variables into the `.ini`, for the file's header. */
  step: string;
  variables: ImageVariable[];
}

/**
 * Each image's variables and their encoding, read from its start script at the named commit:
 * - Danixu's `scripts/entry.sh` puts `${MOD_IDS}` (and `${WORKSHOP_IDS}`) straight into the
 *   replacement of a `sed -i` substitution on the `Mods=` (`WorkshopItems=`) line, so the values are
 *   `sed` replacements; it builds `Map=` from the downloaded items' folders itself.
 * - PepeCitron's `entry.sh` writes `Mods=${MOD_NAMES}` with `echo` while the `.ini` does not exist
 *   yet, and afterwards its `updateConfigValue` puts the value, every `&` escaped, into the
 *   replacement of a `sed -i` substitution: `sed` replacements whose `&` the script escapes itself.
 *   It reads no map variable.
 * - Renegade-Master's `src/run_server.sh` hands the values to `src/edit_server_config.py`, which sets
 *   them with Python's `RawConfigParser` (no interpolation) and writes `key=value`: verbatim.
 * - indifferentbroccoli's `scripts/compile-settings.sh` runs `envsubst` over a template holding
 *   `Mods=$MODS`, `WorkshopItems=$WORKSHOP_ITEMS` and `Map=$MAP`: verbatim.
 */
export const SERVER_IMAGES: Record<ServerImage, ServerImageSpec> = {
  danixu: {
    repository: "Danixu/project-zomboid-server-docker",
    commit: "4fdb84b9cbed23f168d175ece6deafc508dcb061",
    step: "GNU sed replacements: \\, & and / escaped with \\",
    variables: [
      { name: "MOD_IDS", line: "mods", encode: sedReplacement },
      { name: "WORKSHOP_IDS", line: "workshopItems", encode: sedReplacement },
    ],
  },
  pepecitron: {
    repository: "PepeCitron/projectzomboid-server",
    commit: "a061c9ec719e8c7248a6c582b071f55891138d78",
    step: "GNU sed replacements once the .ini exists: \\ and / escaped with \\ (the image escapes &)",
    variables: [
      { name: "MOD_NAMES", line: "mods", encode: sedReplacementAfterAmpersands },
      { name: "MOD_WORKSHOP_IDS", line: "workshopItems", encode: sedReplacementAfterAmpersands },
    ],
  },
  "renegade-master": {
    repository: "Renegade-Master/zomboid-dedicated-server",
    commit: "983853e53a17866907bd3b253b8985a6eb6bcccf",
    step: "Python configparser: verbatim",
    variables: [
      { name: "MOD_NAMES", line: "mods", encode: verbatim },
      { name: "MOD_WORKSHOP_IDS", line: "workshopItems", encode: verbatim },
      { name: "MAP_NAMES", line: "map", encode: verbatim },
    ],
  },
  indifferentbroccoli: {
    repository: "indifferentbroccoli/projectzomboid-server-docker",
    commit: "b29c28c6dc0071e99a40f4ddca0fb4b26c22df21",
    step: "envsubst into a template: verbatim",
    variables: [
      { name: "MODS", line: "mods", encode: verbatim },
      { name: "WORKSHOP_ITEMS", line: "workshopItems", encode: verbatim },
      { name: "MAP", line: "map", encode: verbatim },
    ],
  },
};

/** The generic names, verbatim, for a start step of the owner's own. */
export const GENERIC_VARIABLES: ImageVariable[] = [
  { name: "MODS", line: "mods", encode: verbatim },
  { name: "WORKSHOP_ITEMS", line: "workshopItems", encode: verbatim },
  { name: "MAP", line: "map", encode: verbatim },
];

/**
 * An env file as Docker's `--env-file` reads it: the header as `#` comment lines, then one
 * `KEY=value` line per variable. Docker takes a value verbatim (no quotes, no escapes), so each
 * value is the server file's own line (`;` separated), encoded for the image's start step when one
 * is named; the renderer's rule already keeps line breaks out of them.
 */
export function renderEnvFile(header: string[], lines: ServerFileLines, image?: ServerImage): string {
  const spec = image === undefined ? undefined : SERVER_IMAGES[image];
  const about = spec ? [`# For ${spec.repository} at ${spec.commit.slice(0, 12)}: ${spec.step}`] : [];
  const variables = (spec?.variables ?? GENERIC_VARIABLES).map(
    ({ name, line, encode }) => `${name}=${encode(lines[line].join(";"))}`,
  );
  return `${[...header, ...about, ...variables].join("\n")}\n`;
}
