import type { Caller, CheckFinding, GameVersion, IdForm, ServerFilePatch } from "@modpack/contract";
import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { mergeMap, patchServerFile, readEntries } from "../server-file/patch.js";
import { BASE_MAP, renderServerFileWithReport, type ServerFileLines } from "../server-file/render.js";
import { loadEffectiveConfiguration, renderInputFor } from "./exports.js";
import { checkConfiguration, headerLines } from "./modpack-check.js";
import { authorizeModpack } from "./modpacks.js";
import type { WorkGate } from "./user-limits.js";

/** A modpack's server file as its mods, order and selection are now. */
export interface CurrentServerFile {
  version: GameVersion;
  /** The `#` header lines: the service, the modpack, the version, then the check's errors and warnings. */
  header: string[];
  lines: ServerFileLines;
  /** The `ini` form: the header and the three mod lines, as the asynchronous export writes them. */
  ini: string;
  /** The modpack check's errors and warnings for the version. */
  findings: CheckFinding[];
  /** How many of the findings are errors. */
  errors: number;
}

/**
 * The current server file of a modpack the caller may read (anyone, for a public one): rendered
 * from the effective configuration with the export's rule and header, but with no generation time,
 * so the same modpack always gives the same bytes. A modpack whose check finds errors still renders.
 */
export async function currentServerFile(
  db: Db,
  caller: Caller | null,
  modpackId: string,
  version: GameVersion,
  idForm?: IdForm,
): Promise<CurrentServerFile> {
  const modpack = await authorizeModpack(db, caller, modpackId, "read");
  const effective = await loadEffectiveConfiguration(db, modpack.id);
  const check = await checkConfiguration(db, effective, version);
  const findings = check.findings.filter((finding) => finding.severity !== "info");
  const { content, header, lines } = renderServerFileWithReport({
    modpack: { id: modpack.id, name: modpack.name },
    version,
    idForm,
    ...renderInputFor(effective, version),
    comments: headerLines(findings),
  });
  return {
    version,
    header,
    lines,
    ini: content,
    findings,
    errors: findings.filter((finding) => finding.severity === "error").length,
  };
}

/** Which of `folders` some mod of the catalogue lists as a map folder. */
async function cataloguedMapFolders(db: Db, folders: string[]): Promise<Set<string>> {
  if (folders.length === 0) return new Set();
  const rows = await db
    .selectFrom("mods")
    .select(sql<string>`unnest(map_folders)`.as("folder"))
    .where(sql<boolean>`map_folders && array[${sql.join(folders)}]::text[]`)
    .execute();
  return new Set(rows.map((row) => row.folder));
}

/**
 * The owner's whole `servertest.ini` with the modpack's current `Mods=`, `WorkshopItems=` and
 * `Map=` written into it (see `patchServerFile`); `Map=` keeps the owner's own map folders, those
 * no mod of the catalogue lists. Nothing of the uploaded file is stored.
 */
export async function patchedServerFile(
  db: Db,
  caller: Caller | null,
  modpackId: string,
  version: GameVersion,
  text: string,
  idForm?: IdForm,
): Promise<ServerFilePatch & { errors: number }> {
  const file = await currentServerFile(db, caller, modpackId, version, idForm);
  const current = readEntries(text, "Map") ?? [];
  const theirs = current.filter((folder) => folder !== BASE_MAP && !file.lines.map.includes(folder));
  const map = mergeMap(file.lines.map, current, await cataloguedMapFolders(db, [...new Set(theirs)]));
  const patched = patchServerFile(text, { ...file.lines, map });
  return { ...patched, errors: file.errors };
}

/**
 * The current server file and its patch, through the modpack check's bound (`checkGate`, the one
 * the checks use): rendering one checks the modpack.
 */
export function serverFilesService(db: Db, gate: WorkGate) {
  return {
    current(
      caller: Caller | null,
      modpackId: string,
      version: GameVersion,
      idForm?: IdForm,
    ): Promise<CurrentServerFile> {
      return gate.run(() => currentServerFile(db, caller, modpackId, version, idForm));
    },
    patch(
      caller: Caller | null,
      modpackId: string,
      version: GameVersion,
      text: string,
      idForm?: IdForm,
    ): Promise<ServerFilePatch & { errors: number }> {
      return gate.run(() => patchedServerFile(db, caller, modpackId, version, text, idForm));
    },
  };
}
