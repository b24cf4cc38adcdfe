import type { GameVersion, ServerStartFinding } from "@modpack/contract";
import type { Db } from "./database.js";

/** The latest report of a version, when it is of `revision`: its error findings, for the check. */
export async function latestStartErrors(
  db: Db,
  modpackId: string,
  version: GameVersion,
  revision: number,
): Promise<ServerStartFinding[]> {
  const latest = await db
    .selectFrom("serverStarts")
    .select(["revision", "findings"])
    .where("modpackId", "=", modpackId)
    .where("version", "=", version)
    .orderBy("createdAt", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!latest || latest.revision !== revision) return [];
  return latest.findings.filter((finding) => finding.severity === "error");
}
