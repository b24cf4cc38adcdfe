import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { lockModsInOrder } from "../db/lock-order.js";
import {
  classifyChange,
  type Holder,
  loadHolders,
  type ModChange,
  type ModChangeKind,
  publishModsUpdated,
} from "../db/mod-changes.js";
import { findNewErrors, type NewErrors, newErrorsText } from "../db/modpack-check.js";
import { upsertWorkshopItems } from "../db/mods.js";
import { createNotifications, type NewNotification } from "../db/notifications.js";
import type { ModRow } from "../db/schema.js";
import { type JobQueue, MOD_UPDATE_QUEUE } from "../services/ports.js";
import type { WorkshopClient, WorkshopItem } from "../workshop/client.js";
import type { JobDefinition } from "./boss.js";

/** Catalogue rows read, and workshop items asked for, at a time. */
const PAGE_SIZE = 100;

const changeText: Record<ModChangeKind, string> = {
  updated: "has an update",
  breaking: "changed its in-game ids or map folders (check your load order)",
  requirements: "changed the workshop items it requires",
  removed: "was removed from the workshop or is no longer available",
};

/**
 * One notification per user for the whole run: the changed mods in the user's active modpacks and
 * which modpacks hold them, with the new problems the run caused in the modpacks the user edits
 * folded in.
 */
async function notifyModChanges(db: Db, changes: ModChange[], holders: Holder[], newErrors: NewErrors[]) {
  const byMod = new Map(changes.map((change) => [change.modId, change]));
  interface UserEntry {
    mods: Map<string, ModChange>;
    modpacks: Map<string, string>;
    problems: NewErrors[];
  }
  const perUser = new Map<string, UserEntry>();
  const entryOf = (userId: string): UserEntry => {
    const entry = perUser.get(userId) ?? { mods: new Map(), modpacks: new Map(), problems: [] };
    perUser.set(userId, entry);
    return entry;
  };
  for (const holder of holders) {
    const change = byMod.get(holder.modId)!;
    for (const userId of [holder.ownerId, ...holder.memberIds]) {
      const entry = entryOf(userId);
      entry.mods.set(change.modId, change);
      entry.modpacks.set(holder.modpackId, holder.modpackName);
    }
  }
  for (const errors of newErrors) {
    for (const userId of new Set([errors.ownerId, ...errors.editorIds])) entryOf(userId).problems.push(errors);
  }

  const notifications = [...perUser].map(([userId, entry]): NewNotification => {
    const mods = [...entry.mods.values()];
    const problemCount = entry.problems.reduce((sum, errors) => sum + errors.findings.length, 0);
    const serious = mods.some((mod) => mod.change !== "updated");
    const lines = mods.map((mod) => `"${mod.name}" ${changeText[mod.change]}`);
    const problems = entry.problems.map((errors) => `In "${errors.name}": ${newErrorsText(errors)}`);
    const title =
      mods.length === 0
        ? `${problemCount === 1 ? "A new problem" : `${problemCount} new problems`} in your modpacks`
        : `${mods.length === 1 ? "A mod" : `${mods.length} mods`} in your modpacks changed${problemCount > 0 ? ` (${problemCount === 1 ? "a new problem" : `${problemCount} new problems`})` : ""}`;
    const changed =
      mods.length > 0
        ? `${lines.join("; ")}. Affected modpacks: ${[...entry.modpacks.values()].map((name) => `"${name}"`).join(", ")}.`
        : "";
    return {
      userId,
      title,
      content: [changed, ...problems].filter((part) => part.length > 0).join(" "),
      type: problemCount > 0 ? "error" : serious ? "warning" : "info",
      metadata: {
        mods,
        modpacks: [...entry.modpacks].map(([id, name]) => ({ id, name })),
        problems: entry.problems.map((errors) => ({ modpackId: errors.modpackId, findings: errors.findings })),
      },
    };
  });
  await createNotifications(db, notifications);
  return notifications.length;
}

/** Re-reads every catalogue mod from the workshop in batches, records the changes, and notifies who is affected. */
export async function runModUpdate(deps: ModUpdateDependencies) {
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
      const item = result.ok ? result.item : undefined;
      // A mod the workshop no longer gives is removed (once: it is then inactive).
      const change = item ? classifyChange(mod, item) : mod.isActive ? "removed" : null;
      if (item && (change || !mod.isActive)) refreshed.push(item);
      if (!change) continue;
      if (!item) removed.push(mod.id);
      before.push(mod);
      changes.push({
        modId: mod.id,
        workshopId: mod.workshopId,
        name: item ? item.title : mod.name,
        change,
        timeUpdated: (item ? item.timeUpdated : mod.timeUpdated)?.toISOString() ?? null,
      });
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
  const holders = await loadHolders(db, changes);
  const newErrors = await findNewErrors(db, before);
  const notified = await notifyModChanges(db, changes, holders, newErrors);
  const delivered = await publishModsUpdated(deps, changes, holders, newErrors);
  return { checked, changes, notified, delivered };
}

export interface ModUpdateDependencies {
  db: Db;
  workshop: WorkshopClient;
  /** Queues the webhook deliveries of the run's events. */
  jobs: Pick<JobQueue, "send">;
}

export function modUpdateJob(deps: Omit<ModUpdateDependencies, "jobs">): JobDefinition {
  return {
    queue: MOD_UPDATE_QUEUE,
    options: { policy: "stately", retryLimit: 2, retryDelay: 60, expireInSeconds: 3600, heartbeatSeconds: 30 },
    schedule: { cron: "0 4 * * *" },
    work: { heartbeatRefreshSeconds: 10 },
    async handle(_jobs, queue) {
      const { checked, changes, notified, delivered } = await runModUpdate({ ...deps, jobs: queue });
      return { checked, changed: changes.length, notified, delivered };
    },
  };
}
