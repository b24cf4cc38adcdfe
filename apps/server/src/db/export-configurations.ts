import { sql } from "kysely";
import type { Db } from "./database.js";

/** A modpack's saved export configuration: its load order and each mod's selection. */
export interface SavedExportConfiguration {
  modsOrder: string[];
  modConfig: Record<string, { selectedPlatformModIds: string[]; customPlatformModIds?: string[] }>;
}

/** Writes a modpack's export configuration, replacing the one it had, as saved by `userId`. */
export async function saveExportConfiguration(
  db: Db,
  modpackId: string,
  saved: SavedExportConfiguration,
  userId: string,
): Promise<void> {
  await db
    .insertInto("exportConfigurations")
    .values({
      modpackId,
      modsOrder: saved.modsOrder,
      modConfig: JSON.stringify(saved.modConfig),
      updatedBy: userId,
      updatedAt: sql<Date>`now()`,
    })
    .onConflict((onConflict) =>
      onConflict.column("modpackId").doUpdateSet((eb) => ({
        modsOrder: eb.ref("excluded.modsOrder"),
        modConfig: eb.ref("excluded.modConfig"),
        updatedBy: eb.ref("excluded.updatedBy"),
        updatedAt: sql<Date>`now()`,
      })),
    )
    .execute();
}
