import { type CheckFinding, type GameVersion, gameVersions, type ModpackCheck } from "@modpack/contract";
import { sql } from "kysely";
import { checkModpack } from "../modpack/check.js";
import { applyConfiguration, type EffectiveConfiguration, toPackMod } from "../modpack/pack-mods.js";
import type { Db } from "./database.js";
import { loadModpackMods } from "./export-configurations.js";
import { createNotifications, type NewNotification } from "./notifications.js";
import type { ModRow } from "./schema.js";

/*
 * The modpack check's reads and what it tells: a loaded configuration checked with the catalogue's
 * titles of its missing requirements, and the errors a change of catalogue rows introduced, found
 * and notified. The check itself is pure (`modpack/check.ts`).
 */

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
