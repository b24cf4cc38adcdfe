import {
  type CheckFinding,
  type CheckSeverity,
  type GameVersion,
  gameVersions,
  type ModpackCheck,
  type Services,
} from "@modpack/contract";
import FlatQueue from "flatqueue";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ModRow } from "../db/schema.js";
import { loadEffectiveConfiguration, loadModpackMods } from "./exports.js";
import { createNotifications, type NewNotification } from "./notifications.js";
import {
  applyConfiguration,
  distinctIds,
  type EffectiveConfiguration,
  type PackMod,
  toPackMod,
  writtenIdsOf,
} from "./pack-mods.js";
import { latestStartErrors } from "./server-starts.js";
import { type WorkGate, workGate } from "./user-limits.js";

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

    const written = writtenIdsOf(mod, effective.configuration, version);
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
      message: `The in-game id "${platformModId}" is selected in ${listOf(holders.map((position) => label(mods[position]!)))}; the game loads only one mod per id. Deselect it in all but one of them.${version === "42x" ? " Naming the workshop item too (`idForm=workshop`) does not tell them apart: the server removes every `\\` from `Mods=` before it reads the ids." : ""}`,
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
      message: `${listOf(group.map((position) => label(mods[position]!)))} require each other, so no load order puts every requirement first; they keep their saved order.`,
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

/**
 * Checks an already loaded configuration: at most one more query, for the catalogue's titles of the
 * required items no active mod of the modpack provides (for the messages).
 */
export async function checkConfiguration(
  db: Db,
  effective: EffectiveConfiguration,
  version: GameVersion,
): Promise<ModpackCheck> {
  const present = new Set(effective.mods.map((mod) => mod.workshopId));
  const missing = new Set(effective.mods.flatMap((mod) => mod.requiredWorkshopIds).filter((id) => !present.has(id)));
  const titles =
    missing.size === 0
      ? []
      : await db
          .selectFrom("mods")
          .select(["workshopId", "name"])
          // One array value instead of one per id: the statement stays the same for any count.
          .where("workshopId", "=", sql<string>`any(${[...missing]})`)
          .execute();
  return checkModpack({ version, effective, knownTitles: new Map(titles.map((row) => [row.workshopId, row.name])) });
}

/** One line per error and warning, for the server file's `#` header. */
export function headerLines(findings: CheckFinding[]): string[] {
  return findings
    .filter((finding) => finding.severity !== "info")
    .map((finding) => `${finding.severity === "error" ? "ERROR" : "WARNING"} (${finding.code}): ${finding.message}`);
}

/** What makes an error the same error on another run or version. */
const errorKey = (finding: CheckFinding) =>
  [finding.code, finding.modId ?? "", finding.requiredWorkshopId ?? "", finding.platformModId ?? ""].join("|");

/** The errors of a modpack on either version, one per key (42x first). */
function errorsOf(effective: EffectiveConfiguration): Map<string, CheckFinding> {
  const errors = new Map<string, CheckFinding>();
  for (const version of [...gameVersions].reverse()) {
    for (const finding of checkModpack({ version, effective }).findings) {
      if (finding.severity === "error" && !errors.has(errorKey(finding))) errors.set(errorKey(finding), finding);
    }
  }
  return errors;
}

const MESSAGES_PER_NOTIFICATION = 5;
/** Modpacks whose mods are loaded at once when a change is checked. */
const MODPACKS_PER_BATCH = 200;

/** The errors a change of catalogue rows introduced in one active modpack, and who edits it. */
export interface NewErrors {
  modpackId: string;
  name: string;
  ownerId: string;
  /** Members who may change the modpack (not readers). */
  editorIds: string[];
  findings: CheckFinding[];
}

/**
 * After catalogue rows changed (a refresh or the update job), the errors the change introduced in
 * each active modpack holding one of them: the check with the rows as they were against the check
 * as they are now, so a run that changes nothing finds nothing. Two statements per 200 modpacks,
 * plus one.
 */
export async function findNewErrors(db: Db, before: ModRow[]): Promise<NewErrors[]> {
  if (before.length === 0) return [];
  const beforeById = new Map(before.map((row) => [row.id, row]));
  const modpacks = await db
    .selectFrom("modpacks")
    .select(["modpacks.id", "modpacks.name", "modpacks.ownerId"])
    .select((eb) =>
      eb
        .selectFrom("modpackMembers")
        .select(sql<string[]>`coalesce(array_agg(modpack_members.user_id), '{}')`.as("editors"))
        .whereRef("modpackMembers.modpackId", "=", "modpacks.id")
        .where("modpackMembers.isActive", "=", true)
        .where(
          sql<boolean>`modpack_members.permission && array['add-mod', 'remove-mod', 'import', 'configure']::text[]`,
        )
        .as("editorIds"),
    )
    .where("modpacks.isActive", "=", true)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("modpackMods")
          .select(sql.lit(1).as("one"))
          .whereRef("modpackMods.modpackId", "=", "modpacks.id")
          .where("modpackMods.isActive", "=", true)
          .where("modpackMods.modId", "in", [...beforeById.keys()]),
      ),
    )
    .execute();
  const found: NewErrors[] = [];
  for (let start = 0; start < modpacks.length; start += MODPACKS_PER_BATCH) {
    const batch = modpacks.slice(start, start + MODPACKS_PER_BATCH);
    const loaded = await loadModpackMods(
      db,
      batch.map((modpack) => modpack.id),
    );
    for (const modpack of batch) {
      const entry = loaded.get(modpack.id);
      if (!entry) continue;
      const now = errorsOf(applyConfiguration(entry.active, entry.saved));
      const then = errorsOf(
        applyConfiguration(
          entry.active.map((mod) => {
            const row = beforeById.get(mod.id);
            // The mod as it was before its catalogue row changed.
            return row ? toPackMod({ ...row, available: row.isActive }) : mod;
          }),
          entry.saved,
        ),
      );
      const introduced = [...now].filter(([key]) => !then.has(key)).map(([, finding]) => finding);
      if (introduced.length === 0) continue;
      found.push({
        modpackId: modpack.id,
        name: modpack.name,
        ownerId: modpack.ownerId,
        editorIds: modpack.editorIds ?? [],
        findings: introduced,
      });
    }
  }
  return found;
}

/** The few messages a notification shows of a modpack's new errors, and where to read the rest. */
export function newErrorsText(errors: NewErrors): string {
  const shown = errors.findings.slice(0, MESSAGES_PER_NOTIFICATION).map((finding) => finding.message);
  const more = errors.findings.length - shown.length;
  return `${shown.join(" ")}${more > 0 ? ` And ${more} more: see GET /modpacks/${errors.modpackId}/check.` : ""}`;
}

/** Tells the owner and editing members of each modpack about the errors a change introduced in it. */
export async function notifyNewErrors(db: Db, found: NewErrors[]): Promise<number> {
  const notifications: NewNotification[] = [];
  for (const errors of found) {
    for (const userId of new Set([errors.ownerId, ...errors.editorIds])) {
      notifications.push({
        userId,
        title:
          errors.findings.length === 1
            ? `A new problem in "${errors.name}"`
            : `${errors.findings.length} new problems in "${errors.name}"`,
        content: newErrorsText(errors),
        type: "error",
        metadata: { modpackId: errors.modpackId, findings: errors.findings },
      });
    }
  }
  await createNotifications(db, notifications);
  return notifications.length;
}

export const CHECKS_AT_ONCE = 2;
export const CHECKS_WAITING = 256;

/**
 * The bound on checking modpacks, CPU work on the one JavaScript thread: a process checks two at a
 * time (a check or a server file, which checks the modpack too), queues the rest in arrival order,
 * and past the queue's bound answers 503 with `Retry-After`. One per process, shared by both.
 */
export function checkGate(): WorkGate {
  return workGate({ running: CHECKS_AT_ONCE, waiting: CHECKS_WAITING, what: "modpack checks", retryAfterSeconds: 1 });
}

/** The modpack check: three queries at most, whatever the modpack's size, through `gate`. */
export function checksService(db: Db, gate: WorkGate = checkGate()): Services["checks"] {
  return {
    check(modpack, { version }) {
      return gate.run(async () => {
        const [check, seen] = await Promise.all([
          loadEffectiveConfiguration(db, modpack.id).then((effective) => checkConfiguration(db, effective, version)),
          latestStartErrors(db, modpack.id, version, modpack.modpack.revision),
        ]);
        if (seen.length === 0) return check;
        // What the server itself reported of its last start with this revision: warnings beside the prediction.
        const findings: CheckFinding[] = seen.map((finding) => ({
          code: "seen-at-start",
          severity: "warning",
          message: `The latest start of revision ${modpack.modpack.revision} on ${version} reported: ${finding.text}`,
          ...(finding.modId ? { modId: finding.modId } : {}),
          ...(finding.workshopId ? { workshopId: finding.workshopId } : {}),
          ...(finding.platformModId ? { platformModId: finding.platformModId } : {}),
        }));
        return { ...check, findings: [...check.findings, ...findings] };
      });
    },
  };
}
