import { type WorkshopClient, WorkshopError, type WorkshopItem } from "../workshop/client.js";
import type { Db } from "./database.js";
import { upsertWorkshopItems } from "./mods.js";
import type { ImportFailure, ModRow } from "./schema.js";

/** How many required items one add or import follows at most. */
const MAX_REQUIREMENTS = 500;

export interface Requirements {
  /** The required mods found, requirements of requirements first (the order they should load in). */
  mods: ModRow[];
  /** Required items the workshop could not give (missing, another game's, unreachable). */
  failures: ImportFailure[];
}

/**
 * Follows the workshop items `mods` require, transitively, skipping the ones in `present`
 * (workshop ids the modpack already has): each level is read from the catalogue in one query,
 * and what the catalogue lacks is fetched from the workshop and added to it. Adding a mod and
 * importing a collection both come through here.
 */
export async function findRequirements(
  db: Db,
  workshop: WorkshopClient,
  mods: ModRow[],
  present: ReadonlySet<string>,
): Promise<Requirements> {
  const seen = new Set([...present, ...mods.map((mod) => mod.workshopId)]);
  const levels: ModRow[][] = [];
  const failures: ImportFailure[] = [];
  let found = 0;
  let frontier = mods;
  for (;;) {
    const wanted: string[] = [];
    for (const mod of frontier) {
      for (const id of mod.requiredWorkshopIds) {
        if (seen.has(id) || found + wanted.length >= MAX_REQUIREMENTS) continue;
        seen.add(id);
        wanted.push(id);
      }
    }
    if (wanted.length === 0) break;
    const known = await db.selectFrom("mods").selectAll().where("workshopId", "in", wanted).execute();
    const knownIds = new Set(known.map((row) => row.workshopId));
    const unknown = wanted.filter((id) => !knownIds.has(id));
    const fetched: WorkshopItem[] = [];
    if (unknown.length > 0) {
      try {
        for (const result of await workshop.getItems(unknown)) {
          if (result.ok) fetched.push(result.item);
          else failures.push({ workshopId: result.workshopId, reason: result.reason });
        }
      } catch (error) {
        if (!(error instanceof WorkshopError)) throw error;
        for (const workshopId of unknown) failures.push({ workshopId, reason: "unavailable" });
      }
    }
    const level = [...known, ...(await upsertWorkshopItems(db, fetched))];
    found += level.length;
    levels.push(level);
    frontier = level;
  }
  // Deepest first, so a requirement's own requirements load before it; the same item is listed once.
  const ordered = new Map(levels.reverse().flatMap((level) => level.map((mod) => [mod.id, mod] as const)));
  return { mods: [...ordered.values()], failures };
}
