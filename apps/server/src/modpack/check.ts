import type { CheckFinding, CheckSeverity, GameVersion, ModpackCheck } from "@modpack/contract";
import FlatQueue from "flatqueue";
import { distinctIds, type EffectiveConfiguration, type PackMod, writtenIdsOf } from "./pack-mods.js";

/** Workshop tags that name a game build: `Build 41`, `Build 42`, `B42`, `Build 42.13`. */
const BUILD_TAG = /^(?:build|b)\s*(\d{2})(?:\.\d+)*$/i;
const BUILD_OF_VERSION: Record<GameVersion, string> = { "41x": "41", "42x": "42" };
const SEVERITY_RANK: Record<CheckSeverity, number> = { error: 0, warning: 1, info: 2 };

export interface CheckInput {
  version: GameVersion;
  effective: EffectiveConfiguration;
  /** Titles of required workshop items the catalogue knows, by workshop id (for the messages). */
  knownTitles?: ReadonlyMap<string, string>;
}

const NO_BUILDS: readonly string[] = [];

/**
 * The game builds a mod's workshop tags name (`41`, `42`), each once, empty when none do. `seen`
 * keeps each tag's build (empty for none) across the mods of one check: a pack's mods share a few
 * tags (`Build 42` on most), so each is matched once a check rather than once a mod.
 */
export function buildsOfTags(tags: string[], seen = new Map<string, string>()): readonly string[] {
  let builds: string[] | undefined;
  for (const tag of tags) {
    let build = seen.get(tag);
    if (build === undefined) {
      build = BUILD_TAG.exec(tag.trim())?.[1] ?? "";
      seen.set(tag, build);
    }
    if (build && !builds?.includes(build)) builds = builds ? [...builds, build] : [build];
  }
  return builds ?? NO_BUILDS;
}

function label(mod: PackMod): string {
  const name = mod.name.trim();
  return name ? `"${name}" (workshop ${mod.workshopId})` : `workshop item ${mod.workshopId}`;
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Mods a message names the first two of (their names run to 255 characters), counting the rest. */
const NAMED_MODS = 2;

/**
 * The mods a finding is about, in words: the first two by name, then how many more, so a message
 * stays within the 2,000 characters the contract gives it however many mods share an id or a cycle
 * (`relatedModIds` lists them all).
 */
function modsNamed(mods: PackMod[]): string {
  if (mods.length <= NAMED_MODS) return listOf(mods.map(label));
  const more = mods.length - NAMED_MODS;
  return `${mods.slice(0, NAMED_MODS).map(label).join(", ")} and ${more} more mod${more === 1 ? "" : "s"}`;
}

/**
 * Each mod's requirements in the pack, as positions: `undefined` for a mod that requires none of
 * the pack's mods (most of a large pack's), so a check makes an array only for those that do.
 */
type Requirements = (number[] | undefined)[];

const NO_EDGES: readonly number[] = [];

/**
 * Strongly connected components (Tarjan): `groups` each as indexes in ascending order, and the
 * group of each index. Its bookkeeping is typed arrays: it runs for every mod on every check.
 */
function components(size: number, edges: Requirements): { groups: number[][]; groupOf: Int32Array } {
  const index = new Int32Array(size).fill(-1);
  const low = new Int32Array(size);
  const onStack = new Uint8Array(size);
  const groupOf = new Int32Array(size);
  const stack: number[] = [];
  const found: number[][] = [];
  let counter = 0;
  const visit = (node: number) => {
    index[node] = counter;
    low[node] = counter;
    counter += 1;
    stack.push(node);
    onStack[node] = 1;
    const next = edges[node] ?? NO_EDGES;
    for (let edge = 0; edge < next.length; edge++) {
      const other = next[edge]!;
      if (index[other] === -1) {
        visit(other);
        low[node] = Math.min(low[node]!, low[other]!);
      } else if (onStack[other] === 1) {
        low[node] = Math.min(low[node]!, index[other]!);
      }
    }
    if (low[node] === index[node]) {
      // Most mods are a group of their own: their array is made at its size.
      const component =
        stack.at(-1) === node ? [stack.pop()!] : stack.splice(stack.lastIndexOf(node)).sort((a, b) => a - b);
      for (const member of component) {
        onStack[member] = 0;
        groupOf[member] = found.length;
      }
      found.push(component);
    }
  };
  for (let node = 0; node < size; node++) if (index[node] === -1) visit(node);
  return { groups: found, groupOf };
}

/**
 * A load order where every requirement loads before what needs it, otherwise the saved order:
 * among the mods whose requirements are placed, the one saved first goes next. Mods in a cycle
 * move as one block, in their saved order.
 */
function stableOrder(requires: Requirements, { groups, groupOf }: ReturnType<typeof components>): number[] {
  // A group is ready once every requirement from outside it is placed; a requirement counted twice
  // is also placed twice, so repeats need no removing.
  const waiting = new Int32Array(groups.length);
  const dependents: (number[] | undefined)[] = new Array(groups.length);
  for (let node = 0; node < requires.length; node++) {
    const required = requires[node] ?? NO_EDGES;
    for (let edge = 0; edge < required.length; edge++) {
      const from = groupOf[required[edge]!]!;
      const to = groupOf[node]!;
      if (from === to) continue;
      const list = dependents[from];
      if (list) list.push(to);
      else dependents[from] = [to];
      waiting[to]! += 1;
    }
  }
  // Each group goes by its first member's position, so the ready groups leave in saved order.
  const ready = new FlatQueue<number>();
  for (let id = 0; id < groups.length; id++) if (waiting[id] === 0) ready.push(id, groups[id]![0]!);
  const order: number[] = [];
  for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
    for (const member of groups[id]!) order.push(member);
    for (const next of dependents[id] ?? NO_EDGES) {
      waiting[next]! -= 1;
      if (waiting[next] === 0) ready.push(next, groups[next]![0]!);
    }
  }
  return order;
}

/** Whether a modpack will load on one game version: findings and a suggested load order. Pure. */
export function checkModpack(input: CheckInput): ModpackCheck {
  const { version, effective } = input;
  const mods = effective.mods;
  const build = BUILD_OF_VERSION[version];
  const findings: { finding: CheckFinding; position: number; order: number }[] = [];
  const add = (position: number, finding: CheckFinding) => findings.push({ finding, position, order: findings.length });

  const positionOf = new Map<string, number>();
  for (const [position, mod] of mods.entries()) positionOf.set(mod.workshopId, position);
  const requires: Requirements = new Array(mods.length);
  const providers = new Map<string, number[]>();
  const tagBuilds = new Map<string, string>();

  mods.forEach((mod, position) => {
    if (!mod.available) {
      add(position, {
        code: "unavailable",
        severity: "error",
        message: `${label(mod)} was removed, made private or delisted on the Steam Workshop (as of its last refresh), so the server cannot download it. Remove it or replace it.`,
        modId: mod.id,
        workshopId: mod.workshopId,
      });
    }

    const written = writtenIdsOf(mod, effective.selections[position]!, version);
    if (written.versionIds.length === 0 && written.custom.length === 0) {
      add(position, {
        code: "no-ids",
        severity: "error",
        message: `${label(mod)} names no in-game mod id for Build ${build} in its workshop description, so the server file leaves it out. Give it its ids by hand in the export configuration (customPlatformModIds).`,
        modId: mod.id,
        workshopId: mod.workshopId,
      });
    } else if (written.selected.length === 0 && written.custom.length === 0) {
      add(position, {
        code: "nothing-selected",
        severity: "info",
        message: `Every in-game id of ${label(mod)} is deselected, so the server file leaves it out.`,
        modId: mod.id,
        workshopId: mod.workshopId,
      });
    }
    for (const id of distinctIds(
      written.custom.length > 0 ? [...written.selected, ...written.custom] : written.selected,
    )) {
      const holders = providers.get(id);
      if (holders) holders.push(position);
      else providers.set(id, [position]);
    }

    const builds = buildsOfTags(mod.tags, tagBuilds);
    if (builds.length > 0 && !builds.includes(build)) {
      const named = [...builds].sort().map((value) => `Build ${value}`);
      add(position, {
        code: "wrong-build",
        severity: "warning",
        message: `${label(mod)} is tagged for ${listOf(named)} on the Steam Workshop, not for Build ${build}; it may not load on this version.`,
        modId: mod.id,
        workshopId: mod.workshopId,
      });
    }

    for (const required of distinctIds(mod.requiredWorkshopIds)) {
      const provider = positionOf.get(required);
      if (provider === undefined) {
        const title = input.knownTitles?.get(required);
        add(position, {
          code: "missing-requirement",
          severity: "error",
          message: `${label(mod)} requires workshop item ${required}${title ? ` ("${title}")` : ""}, which is not in the modpack. Add it to the modpack.`,
          modId: mod.id,
          workshopId: mod.workshopId,
          requiredWorkshopId: required,
        });
      } else if (provider !== position) {
        const list = requires[position];
        if (list) list.push(provider);
        else requires[position] = [provider];
      }
    }
  });

  providers.forEach((holders, platformModId) => {
    if (holders.length < 2) return;
    const [firstHolder, ...others] = holders as [number, ...number[]];
    const later = mods[others[0]!]!;
    add(firstHolder, {
      code: "id-clash",
      severity: "error",
      message: `The in-game id "${platformModId}" is selected in ${modsNamed(holders.map((position) => mods[position]!))}; the game loads only one mod per id. Deselect it in all but one of them.${version === "42x" ? " Naming the workshop item too (`idForm=workshop`) does not tell them apart: the server removes every `\\` from `Mods=` before it reads the ids." : ""}`,
      modId: later.id,
      workshopId: later.workshopId,
      platformModId,
      relatedModIds: holders.filter((position) => position !== others[0]).map((position) => mods[position]!.id),
    });
  });

  const cycles = components(mods.length, requires);
  const { groupOf } = cycles;
  cycles.groups.forEach((group) => {
    if (group.length < 2) return;
    add(group[0]!, {
      code: "requirement-cycle",
      severity: "warning",
      message: `${modsNamed(group.map((position) => mods[position]!))} require each other, so no load order puts every requirement first; they keep their saved order.`,
      relatedModIds: group.map((position) => mods[position]!.id),
    });
  });

  mods.forEach((mod, position) => {
    for (const provider of requires[position] ?? NO_EDGES) {
      if (provider < position || groupOf[provider] === groupOf[position]) continue;
      const required = mods[provider]!;
      add(position, {
        code: "requirement-order",
        severity: "warning",
        message: `${label(mod)} requires ${label(required)}, which loads after it. Move ${label(required)} earlier (suggestedOrder does).`,
        modId: mod.id,
        workshopId: mod.workshopId,
        requiredWorkshopId: required.workshopId,
        relatedModIds: [required.id],
      });
    }
  });

  findings.sort(
    (a, b) =>
      SEVERITY_RANK[a.finding.severity] - SEVERITY_RANK[b.finding.severity] ||
      a.position - b.position ||
      a.order - b.order,
  );
  const list = findings.map((entry) => entry.finding);
  return {
    version,
    ok: !list.some((finding) => finding.severity === "error"),
    findings: list,
    suggestedOrder: stableOrder(requires, cycles).map((position) => mods[position]!.id),
  };
}

/** One line per error and warning, for the server file's `#` header. */
export function headerLines(findings: CheckFinding[]): string[] {
  return findings
    .filter((finding) => finding.severity !== "info")
    .map((finding) => `${finding.severity === "error" ? "ERROR" : "WARNING"} (${finding.code}): ${finding.message}`);
}
