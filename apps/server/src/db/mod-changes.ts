import { isDeepStrictEqual } from "node:util";
import type { WebhookEvent } from "@modpack/contract";
import { sql } from "kysely";
import { buildModIdsOf } from "../modpack/pack-mods.js";
import type { JobQueue } from "../services/ports.js";
import type { WorkshopItem } from "../workshop/client.js";
import { idsForBuild } from "../workshop/description.js";
import type { Db } from "./database.js";
import type { NewErrors } from "./modpack-check.js";
import type { ModRow } from "./schema.js";
import { publishEvent } from "./webhooks.js";

export type ModChangeKind = "updated" | "breaking" | "requirements" | "removed";

/** A catalogue mod that changed on the workshop (or left it), as a run of the update found it. */
export interface ModChange {
  modId: string;
  workshopId: string;
  name: string;
  change: ModChangeKind;
  /** When the workshop says the item last changed (ISO), when it says. */
  timeUpdated: string | null;
}

/** How a catalogue mod differs from its workshop item now: null when nothing worth telling changed. */
export function classifyChange(mod: ModRow, item: WorkshopItem): ModChangeKind | null {
  const builds = buildModIdsOf(mod);
  if (
    !isDeepStrictEqual(mod.platformModIds, item.platformModIds) ||
    !isDeepStrictEqual(mod.mapFolders, item.mapFolders) ||
    (["41x", "42x"] as const).some((version) => !isDeepStrictEqual(builds[version], idsForBuild(item, version)))
  ) {
    return "breaking";
  }
  if (!isDeepStrictEqual(mod.requiredWorkshopIds.toSorted(), item.requiredWorkshopIds.toSorted())) {
    return "requirements";
  }
  if (item.timeUpdated && (!mod.timeUpdated || item.timeUpdated > mod.timeUpdated)) return "updated";
  return null;
}

/** An active modpack holding a changed mod: the mod, the modpack, and who may read it. */
export interface Holder {
  modId: string;
  modpackId: string;
  modpackName: string;
  ownerId: string;
  memberIds: string[];
}

/** Where the changed mods are: one row per active link of an active modpack to one of them. */
export async function loadHolders(db: Db, changes: ModChange[]): Promise<Holder[]> {
  if (changes.length === 0) return [];
  const rows = await db
    .selectFrom("modpackMods")
    .innerJoin("modpacks", "modpacks.id", "modpackMods.modpackId")
    .select(["modpackMods.modId", "modpacks.id as modpackId", "modpacks.name as modpackName", "modpacks.ownerId"])
    .select((eb) =>
      eb
        .selectFrom("modpackMembers")
        .select(sql<string[]>`coalesce(array_agg(modpack_members.user_id), '{}')`.as("members"))
        .whereRef("modpackMembers.modpackId", "=", "modpacks.id")
        .where("modpackMembers.isActive", "=", true)
        .as("memberIds"),
    )
    .where(
      "modpackMods.modId",
      "in",
      changes.map((change) => change.modId),
    )
    .where("modpackMods.isActive", "=", true)
    .where("modpacks.isActive", "=", true)
    .execute();
  return rows.map((row) => ({ ...row, memberIds: row.memberIds ?? [] }));
}

/** Items a list of the event carries; the rest are counted. */
const LISTED = 50;

const counted = <T>(items: T[]) => ({ items: items.slice(0, LISTED), total: items.length });

/**
 * Sends one `mods.updated` event to each modpack a run touched: its mods updated on the workshop,
 * those removed, and the new errors the run caused in it. Answers how many deliveries were queued.
 */
export async function publishModsUpdated(
  deps: { db: Db; jobs: Pick<JobQueue, "send"> },
  changes: ModChange[],
  holders: Holder[],
  newErrors: NewErrors[],
): Promise<number> {
  const byMod = new Map(changes.map((change) => [change.modId, change]));
  const modpacks = new Map<string, { name: string; mods: ModChange[]; errors: NewErrors["findings"] }>();
  for (const holder of holders) {
    const entry = modpacks.get(holder.modpackId) ?? { name: holder.modpackName, mods: [], errors: [] };
    const change = byMod.get(holder.modId);
    if (change) entry.mods.push(change);
    modpacks.set(holder.modpackId, entry);
  }
  for (const errors of newErrors) {
    const entry = modpacks.get(errors.modpackId) ?? { name: errors.name, mods: [], errors: [] };
    entry.errors = errors.findings;
    modpacks.set(errors.modpackId, entry);
  }
  const timestamp = new Date().toISOString();
  const mod = ({ modId, workshopId, name, timeUpdated }: ModChange) => ({ modId, workshopId, name, timeUpdated });
  let queued = 0;
  for (const [modpackId, entry] of modpacks) {
    const event: WebhookEvent = {
      type: "mods.updated",
      timestamp,
      data: {
        modpack: { id: modpackId, name: entry.name },
        updated: counted(entry.mods.filter((change) => change.change !== "removed").map(mod)),
        removed: counted(entry.mods.filter((change) => change.change === "removed").map(mod)),
        findings: counted(entry.errors),
      },
    };
    queued += await publishEvent(deps, modpackId, event);
  }
  return queued;
}
