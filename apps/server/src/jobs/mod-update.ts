import { isDeepStrictEqual } from "node:util";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { ModRow } from "../db/schema.js";
import { lockModsInOrder } from "../services/lock-order.js";
import { notifyNewErrors } from "../services/modpack-check.js";
import { upsertWorkshopItems } from "../services/mods.js";
import { createNotifications, type NewNotification } from "../services/notifications.js";
import { buildModIdsOf } from "../services/pack-mods.js";
import { MOD_UPDATE_QUEUE } from "../services/ports.js";
import type { WorkshopClient, WorkshopItem } from "../workshop/client.js";
import { idsForBuild } from "../workshop/description.js";
import type { JobDefinition } from "./boss.js";

/** Catalogue rows read, and workshop items asked for, at a time. */
const PAGE_SIZE = 100;

type ModChangeKind = "updated" | "breaking" | "requirements" | "removed";

interface ModChange {
  modId: string;
  workshopId: string;
  name: string;
  change: ModChangeKind;
}

/** How a catalogue mod differs from its workshop item now: null when nothing worth telling changed. */
function classifyChange(mod: ModRow, item: WorkshopItem): ModChangeKind | null {
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

const changeText: Record<ModChangeKind, string> = {
  updated: "has an update",
  breaking: "changed its in-game ids or map folders (check your load order)",
  requirements: "changed the workshop items it requires",
  removed: "was removed from the workshop or is no longer available",
};

/** One notification per user: the changed mods in the user's active modpacks, and which modpacks hold them. */
async function notifyModChanges(db: Db, changes: ModChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const byMod = new Map(changes.map((change) => [change.modId, change]));
  const holders = await db
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
    .where("modpackMods.modId", "in", [...byMod.keys()])
    .where("modpackMods.isActive", "=", true)
    .where("modpacks.isActive", "=", true)
    .execute();

  const perUser = new Map<string, { mods: Map<string, ModChange>; modpacks: Map<string, string> }>();
  for (const holder of holders) {
    const change = byMod.get(holder.modId)!;
    for (const userId of [holder.ownerId, ...(holder.memberIds ?? [])]) {
      const entry = perUser.get(userId) ?? { mods: new Map(), modpacks: new Map() };
      entry.mods.set(change.modId, change);
      entry.modpacks.set(holder.modpackId, holder.modpackName);
      perUser.set(userId, entry);
    }
  }

  const notifications = [...perUser].map(([userId, entry]): NewNotification => {
    const mods = [...entry.mods.values()];
    const serious = mods.some((mod) => mod.change !== "updated");
    const lines = mods.map((mod) => `"${mod.name}" ${changeText[mod.change]}`);
    return {
      userId,
      title: mods.length === 1 ? "A mod in your modpacks changed" : `${mods.length} mods in your modpacks changed`,
      content: `${lines.join("; ")}. Affected modpacks: ${[...entry.modpacks.values()].map((name) => `"${name}"`).join(", ")}.`,
      type: serious ? "warning" : "info",
      metadata: {
        mods,
        modpacks: [...entry.modpacks].map(([id, name]) => ({ id, name })),
      },
    };
  });
  await createNotifications(db, notifications);
  return notifications.length;
}

/** Re-reads every catalogue mod from the workshop in batches, records the changes, and notifies who is affected. */
export async function runModUpdate(deps: { db: Db; workshop: WorkshopClient }) {
  const { db, workshop } = deps;
  const changes: ModChange[] = [];
  const before: ModRow[] = [];
  let checked = 0;
  let after = "";
  for (;;) {
    const page = await db
      .selectFrom("mods")
      .selectAll()
      .where("workshopId", ">", after)
      .orderBy("workshopId")
      .limit(PAGE_SIZE)
      .execute();
    if (page.length === 0) break;
    after = page.at(-1)!.workshopId;
    const results = await workshop.getItems(page.map((mod) => mod.workshopId));
    const refreshed: WorkshopItem[] = [];
    const removed: string[] = [];
    for (const [index, mod] of page.entries()) {
      const result = results[index]!;
      if (result.ok) {
        const change = classifyChange(mod, result.item);
        if (change) {
          changes.push({ modId: mod.id, workshopId: mod.workshopId, name: result.item.title, change });
          before.push(mod);
        }
        if (change || !mod.isActive) refreshed.push(result.item);
      } else if (mod.isActive) {
        removed.push(mod.id);
        before.push(mod);
        changes.push({ modId: mod.id, workshopId: mod.workshopId, name: mod.name, change: "removed" });
      }
    }
    await upsertWorkshopItems(db, refreshed);
    if (removed.length > 0) {
      await db
        .updateTable("mods")
        .set({ isActive: false, updatedAt: sql<Date>`now()` })
        .where("id", "in", lockModsInOrder(db, removed))
        .execute();
    }
    checked += page.length;
  }
  const notified = (await notifyModChanges(db, changes)) + (await notifyNewErrors(db, before));
  return { checked, changes, notified };
}

export function modUpdateJob(deps: { db: Db; workshop: WorkshopClient }): JobDefinition {
  return {
    queue: MOD_UPDATE_QUEUE,
    options: { policy: "stately", retryLimit: 2, retryDelay: 60, expireInSeconds: 3600, heartbeatSeconds: 30 },
    schedule: { cron: "0 4 * * *" },
    work: { heartbeatRefreshSeconds: 10 },
    async handle() {
      const result = await runModUpdate(deps);
      return { checked: result.checked, changed: result.changes.length, notified: result.notified };
    },
  };
}
