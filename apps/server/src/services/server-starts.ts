import {
  type Caller,
  type GameVersion,
  notFound,
  type ServerStart,
  type ServerStartFinding,
  type Services,
} from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { stateAt } from "../db/modpack-revisions.js";
import { authorizeModpack } from "../db/modpacks.js";
import { notify } from "../db/notifications.js";
import { listPage } from "../db/paging.js";
import type { ServerStartsTable } from "../db/schema.js";
import type { RevisionMod } from "../modpack/revision-state.js";
import type { LogFinding, LogScan } from "../server-log/scan.js";

/** What a start script says besides its log: the version, the revision it started with, how it ended. */
export interface StartReport {
  version: GameVersion;
  revision?: number | undefined;
  /** The process's exit code, when it ended before the server was up. */
  exitCode?: number | undefined;
}

type Row = Pick<ServerStartsTable, "revision" | "version" | "outcome" | "modsLoaded"> & {
  id: string;
  findings: ServerStartFinding[];
  createdAt: Date;
};

const toServerStart = (row: Row): ServerStart => ({
  id: row.id,
  revision: row.revision,
  version: row.version,
  outcome: row.outcome,
  modsLoaded: row.modsLoaded,
  findings: row.findings,
  createdAt: row.createdAt.toISOString(),
});

/**
 * The pack's mod a finding concerns: by the in-game id it names, its workshop item (named, or the
 * workshop folder of a Lua file), or the title a Lua stack trace names; null when none matches.
 */
function modOf(finding: LogFinding, mods: readonly RevisionMod[], version: GameVersion): RevisionMod | undefined {
  if (finding.platformModId !== undefined) {
    const id = finding.platformModId;
    return (
      mods.find((mod) => (version === "42x" ? mod.idsB42 : mod.idsB41).includes(id)) ??
      mods.find((mod) => mod.idsB41.includes(id) || mod.idsB42.includes(id))
    );
  }
  if (finding.workshopId !== undefined) return mods.find((mod) => mod.workshopId === finding.workshopId);
  if (finding.modTitle !== undefined) {
    const title = finding.modTitle.trim().toLowerCase();
    return mods.find((mod) => mod.name.trim().toLowerCase() === title);
  }
  return undefined;
}

/**
 * The newest revision whose latest report for the version says `started`, or null: the value the
 * modpack keeps per version (`last_good_b41`, `last_good_b42`).
 */
async function lastGoodRevision(db: Db, modpackId: string, version: GameVersion): Promise<number | null> {
  const row = await sql<{ revision: number | null }>`
    select max(revision) as revision from (
      select distinct on (revision) revision, outcome from server_starts
      where modpack_id = ${modpackId} and version = ${version}
      order by revision, created_at desc, id desc
    ) latest
    where outcome = 'started'`.execute(db);
  return row.rows[0]?.revision ?? null;
}

/**
 * Records what a server's log showed of one start: the outcome and the findings, each tied to the
 * pack's mod it concerns, never the log itself. A failed start notifies the owner, in the same
 * transaction. The caller is the owner or a member (tokens with `write` or `report`).
 */
export async function recordServerStart(
  db: Db,
  caller: Caller,
  modpackId: string,
  report: StartReport,
  scan: LogScan,
): Promise<ServerStart> {
  const modpack = await authorizeModpack(db, caller, modpackId, "member");
  const newest = modpack.modpack.revision;
  const revision = report.revision ?? newest;
  if (revision > newest) throw notFound("Revision not found");
  const mods = await stateAt(db, modpackId, revision);
  const found: LogFinding[] = [...scan.findings];
  if (!scan.up && report.exitCode !== undefined && !found.some((finding) => finding.code === "not-started")) {
    found.push({
      code: "not-started",
      severity: "error",
      line: Math.max(1, scan.lines),
      text: `The server process ended with exit code ${report.exitCode} before it was up`,
    });
  }
  const findings: ServerStartFinding[] = found.map((finding) => {
    const mod = modOf(finding, mods, report.version);
    return {
      code: finding.code,
      severity: finding.severity,
      modId: mod?.id ?? null,
      workshopId: finding.workshopId ?? mod?.workshopId ?? null,
      platformModId: finding.platformModId ?? null,
      line: finding.line,
      text: finding.text,
    };
  });
  const errors = findings.filter((finding) => finding.severity === "error");
  const outcome = errors.length > 0 ? "failed" : scan.up ? "started" : "incomplete";

  return db.transaction().execute(async (trx) => {
    // Reports of one pack take turns: each reads the others' rows before it writes the last good one.
    await trx.selectFrom("modpacks").select("id").where("id", "=", modpackId).forNoKeyUpdate().execute();
    const row = await trx
      .insertInto("serverStarts")
      .values({
        modpackId,
        revision,
        version: report.version,
        outcome,
        modsLoaded: scan.modsLoaded,
        findings: JSON.stringify(findings),
        reportedBy: caller.userId,
      })
      .returning(["id", "revision", "version", "outcome", "modsLoaded", "findings", "createdAt"])
      .executeTakeFirstOrThrow();
    const lastGood = await lastGoodRevision(trx, modpackId, report.version);
    await trx
      .updateTable("modpacks")
      .set(report.version === "41x" ? { lastGoodB41: lastGood } : { lastGoodB42: lastGood })
      .where("id", "=", modpackId)
      .execute();
    if (outcome === "failed") {
      const named = [
        ...new Set(errors.map((finding) => mods.find((mod) => mod.id === finding.modId)?.name).filter(Boolean)),
      ];
      await notify(trx, {
        userId: modpack.ownerId,
        title: `A server failed to start with "${modpack.name}"`,
        content: `Revision ${revision} on ${report.version}: ${errors.length} error${errors.length === 1 ? "" : "s"} in the server's log${named.length > 0 ? `, concerning ${named.map((name) => `"${name}"`).join(", ")}` : ""}. ${errors[0]!.text}`,
        type: "error",
        metadata: {
          modpackId,
          serverStartId: row.id,
          revision,
          version: report.version,
          modIds: errors.map((f) => f.modId),
        },
      });
    }
    return toServerStart(row);
  });
}

/** The start reports of a modpack, for its owner and members (the procedure's rule). */
export function serverStartsService(db: Db): Services["serverStarts"] {
  return {
    list(modpack, input) {
      return listPage(db, input, {
        list: "serverStarts",
        filters: { modpackId: modpack.id },
        rows: db.selectFrom("serverStarts as start").where("start.modpackId", "=", modpack.id),
        sort: { column: "start.createdAt", type: "timestamptz", order: "desc", id: "start.id" },
        count: "exact",
        columns: (rows) =>
          rows.select([
            "start.id",
            "start.revision",
            "start.version",
            "start.outcome",
            "start.modsLoaded",
            "start.findings",
            "start.createdAt",
          ]),
        toItem: toServerStart,
      });
    },
  };
}
