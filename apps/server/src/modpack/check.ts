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

/** The game builds a mod's workshop tags name (`41`, `42`), each once, empty when none do. */
export function buildsOfTags(tags: string[]): readonly string[] {
  let builds: string[] | undefined;
  for (const tag of tags) {
    const build = BUILD_TAG.exec(tag.trim())?.[1];
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
 * Strongly connected components (Tarjan): `groups` each as indexes in ascending order, and the
 * group of each index.
 */
function components(size: number, edges: number[][]): { groups: number[][]; groupOf: number[] } {
  const index = new Array<number>(size).fill(-1);
  const low = new Array<number>(size).fill(0);
  const onStack = new Array<boolean>(size).fill(false);
  const stack: number[] = [];
  const found: number[][] = [];
  const groupOf = new Array<number>(size).fill(0);
  let counter = 0;
  const visit = (node: number) => {
    index[node] = counter;
    low[node] = counter;
    counter += 1;
    stack.push(node);
    onStack[node] = true;
    for (const next of edges[node] ?? []) {
      if (index[next] === -1) {
        visit(next);
        low[node] = Math.min(low[node]!, low[next]!);
      } else if (onStack[next]) {
        low[node] = Math.min(low[node]!, index[next]!);
      }
    }
    if (low[node] === index[node]) {
      const component = stack.splice(stack.lastIndexOf(node));
      for (const member of component) {
        onStack[member] = false;
        groupOf[member] = found.length;
      }
      found.push(component.length > 1 ? component.sort((a, b) => a - b) : component);
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
function stableOrder(requires: number[][], { groups, groupOf }: ReturnType<typeof components>): number[] {
  // A group is ready once every requirement from outside it is placed; a requirement counted twice
  // is also placed twice, so repeats need no removing.
  const waiting = new Array<number>(groups.length).fill(0);
  const dependents: number[][] = groups.map(() => []);
  for (let node = 0; node < requires.length; node++) {
    for (const required of requires[node] ?? []) {
      const from = groupOf[required]!;
      const to = groupOf[node]!;
      if (from === to) continue;
      dependents[from]!.push(to);
      waiting[to]! += 1;
    }
  }
  // Each group goes by its first member's position, so the ready groups leave in saved order.
  const ready = new FlatQueue<number>();
  groups.forEach((group, id) => {
    if (waiting[id] === 0) ready.push(id, group[0]!);
  });
  const order: number[] = [];
  for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
    order.push(...groups[id]!);
    for (const next of dependents[id]!) {
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
  const about = (mod: PackMod) => ({ modId: mod.id, workshopId: mod.workshopId });

  const positionOf = new Map(mods.map((mod, position) => [mod.workshopId, position]));
  const requires: number[][] = mods.map(() => []);
  const providers = new Map<string, number[]>();

  mods.forEach((mod, position) => {
    if (!mod.available) {
      add(position, {
        code: "unavailable",
        severity: "error",
        message: `${label(mod)} was removed, made private or delisted on the Steam Workshop (as of its last refresh), so the server cannot download it. Remove it or replace it.`,
        ...about(mod),
      });
    }

    const written = writtenIdsOf(mod, effective.selections[position]!, version);
    if (written.versionIds.length === 0 && written.custom.length === 0) {
      add(position, {
        code: "no-ids",
        severity: "error",
        message: `${label(mod)} names no in-game mod id for Build ${build} in its workshop description, so the server file leaves it out. Give it its ids by hand in the export configuration (customPlatformModIds).`,
        ...about(mod),
      });
    } else if (written.selected.length === 0 && written.custom.length === 0) {
      add(position, {
        code: "nothing-selected",
        severity: "info",
        message: `Every in-game id of ${label(mod)} is deselected, so the server file leaves it out.`,
        ...about(mod),
      });
    }
    for (const id of distinctIds(
      written.custom.length > 0 ? [...written.selected, ...written.custom] : written.selected,
    )) {
      const holders = providers.get(id);
      if (holders) holders.push(position);
      else providers.set(id, [position]);
    }

    const builds = buildsOfTags(mod.tags);
    if (builds.length > 0 && !builds.includes(build)) {
      const named = [...builds].sort().map((value) => `Build ${value}`);
      add(position, {
        code: "wrong-build",
        severity: "warning",
        message: `${label(mod)} is tagged for ${listOf(named)} on the Steam Workshop, not for Build ${build}; it may not load on this version.`,
        ...about(mod),
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
          ...about(mod),
          requiredWorkshopId: required,
        });
      } else if (provider !== position) {
        requires[position]!.push(provider);
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
      ...about(later),
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
    for (const provider of requires[position]!) {
      if (provider < position || groupOf[provider] === groupOf[position]) continue;
      const required = mods[provider]!;
      add(position, {
        code: "requirement-order",
        severity: "warning",
        message: `${label(mod)} requires ${label(required)}, which loads after it. Move ${label(required)} earlier (suggestedOrder does).`,
        ...about(mod),
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
