import {
  type Caller,
  type CheckFinding,
  conflict,
  type GameVersion,
  type IdForm,
  type ModpackAccess,
  notFound,
  type ServerFilePatch,
} from "@modpack/contract";
import { sql } from "kysely";
import { LRUCache } from "lru-cache";
import type { Db } from "../db/database.js";
import { loadEffectiveConfiguration } from "../db/export-configurations.js";
import { checkConfiguration } from "../db/modpack-check.js";
import { stateAt } from "../db/modpack-revisions.js";
import { authorizeModpack } from "../db/modpacks.js";
import { headerLines } from "../modpack/check.js";
import { applyConfiguration, type EffectiveConfiguration, type PackMod, renderInputFor } from "../modpack/pack-mods.js";
import { mergeMap, patchServerFile, readEntries } from "../server-file/patch.js";
import { BASE_MAP, renderServerFileWithReport, type ServerFileLines } from "../server-file/render.js";
import type { WorkGate } from "../user-limits.js";

/** Which file: the game version, how 42x names its ids, and the revision it is pinned to (the current state when left out). */
export interface ServerFileRequest {
  version: GameVersion;
  idForm?: IdForm | undefined;
  /** A revision's number, or the newest that started cleanly on the version. */
  revision?: number | "last-good" | undefined;
}

/** A modpack's server file as its mods, order and selection are now, or as a revision holds them. */
export interface CurrentServerFile {
  version: GameVersion;
  /** The revision the file is rendered from: the pinned one, else the pack's newest. */
  revision: number;
  /**
   * The `#` header lines: the service, the modpack, the version, then (unless the file is pinned to
   * a revision) the check's errors and warnings.
   */
  header: string[];
  lines: ServerFileLines;
  /** The `ini` form: the header and the three mod lines, as the asynchronous export writes them. */
  ini: string;
  /** The modpack check's errors and warnings for the version, of the state the file is rendered from. */
  findings: CheckFinding[];
  /** How many of the findings are errors. */
  errors: number;
}

/**
 * A revision's state as the check and the renderer read it: each mod's ids per version as the
 * revision wrote them (all selected), its requirements and map folders as the revision knew them,
 * and what only the catalogue knows now (its tags, whether the workshop still has it).
 */
async function revisionConfiguration(db: Db, modpackId: string, revision: number): Promise<EffectiveConfiguration> {
  const state = await stateAt(db, modpackId, revision);
  const now =
    state.length === 0
      ? []
      : await db
          .selectFrom("mods")
          .select(["id", "tags", "isActive"])
          .where("id", "=", sql<string>`any(${state.map((mod) => mod.id)}::uuid[])`)
          .execute();
  const catalogue = new Map(now.map((row) => [row.id, row]));
  const mods: PackMod[] = state.map((mod) => {
    const all = [...new Set([...mod.idsB41, ...mod.idsB42])];
    return {
      id: mod.id,
      name: mod.name,
      workshopId: mod.workshopId,
      platformModIds: all,
      buildModIds: { "41x": mod.idsB41, "42x": mod.idsB42 },
      mapFolders: mod.mapFolders,
      tags: catalogue.get(mod.id)?.tags ?? [],
      requiredWorkshopIds: mod.requiredWorkshopIds,
      available: catalogue.get(mod.id)?.isActive ?? false,
    };
  });
  return applyConfiguration(mods, undefined);
}

/**
 * The server file of a modpack the caller may read (anyone, for a public one), the resource rule
 * already applied (`access`): rendered from the effective configuration with the export's rule and
 * header, but with no generation time, so the same modpack always gives the same bytes. Pinned to a
 * revision, it is rendered from that revision's state alone, and its header names the revision and
 * carries no finding, so its bytes never change; the check (of the revision's mods, today) is still
 * in `findings`. A modpack whose check finds errors still renders.
 */
async function renderCurrentServerFile(
  db: Db,
  access: ModpackAccess,
  request: ServerFileRequest,
): Promise<CurrentServerFile> {
  const { version, idForm } = request;
  const newest = access.modpack.revision;
  const lastGood = access.modpack.lastGoodRevision[version];
  if (request.revision === "last-good" && lastGood === null) {
    throw conflict(`No revision of this modpack has started cleanly on ${version} yet`);
  }
  const revision = request.revision === "last-good" ? (lastGood ?? undefined) : request.revision;
  // 0, the empty pack before its first revision, is a revision a server may have started with.
  if (revision !== undefined && (revision < 0 || revision > newest)) throw notFound("Revision not found");
  const effective =
    revision === undefined
      ? await loadEffectiveConfiguration(db, access.id)
      : await revisionConfiguration(db, access.id, revision);
  const check = await checkConfiguration(db, effective, version);
  const findings = check.findings.filter((finding) => finding.severity !== "info");
  const { content, header, lines } = renderServerFileWithReport({
    modpack: { id: access.id, name: access.name },
    revision,
    version,
    idForm,
    ...renderInputFor(effective, version),
    comments: revision === undefined ? headerLines(findings) : [],
  });
  return {
    version,
    revision: revision ?? newest,
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
 * `Map=` (of `file`) written into it (see `patchServerFile`); `Map=` keeps the owner's own map
 * folders, those no mod of the catalogue lists. Nothing of the uploaded file is stored.
 */
async function patchedServerFile(
  db: Db,
  file: CurrentServerFile,
  text: string,
): Promise<ServerFilePatch & { errors: number; revision: number }> {
  const current = readEntries(text, "Map") ?? [];
  const theirs = current.filter((folder) => folder !== BASE_MAP && !file.lines.map.includes(folder));
  const map = mergeMap(file.lines.map, current, await cataloguedMapFolders(db, [...new Set(theirs)]));
  const patched = patchServerFile(text, { ...file.lines, map });
  return { ...patched, errors: file.errors, revision: file.revision };
}

/** The most text the current files kept in memory hold together, in UTF-16 units of their `ini`. */
const RENDERED_FILES_TEXT = 2 * 1024 * 1024;

/**
 * How long a kept file is trusted. A catalogue write and a new link racing each other can leave a
 * missing requirement's title unseen by the version; a file of that version is rendered again
 * after this long.
 */
const RENDERED_FILE_TTL_MS = 10 * 60_000;

/**
 * The current server file and its patch. Rendering one checks the modpack, so it goes through the
 * modpack check's bound (`checkGate`, the one the checks use), and so does a patch's own work on
 * the uploaded file. The resource rule is applied once, and the modpack's read version it reads
 * names the file: the version moves with everything a current file is made of (the modpack's name
 * and revision, its links, their catalogue rows, the titles of missing requirements, its export
 * configuration: migrations 0008 and 0018), so a file rendered for a version is the file of that
 * version, and a script fetching it on every start, or revalidating it, is answered without
 * checking the modpack again. A file pinned to a revision is rendered each time: its findings are
 * today's check of mods the modpack may no longer hold, whose changes move no version of it.
 */
export function serverFilesService(db: Db, gate: WorkGate) {
  const rendered = new LRUCache<string, CurrentServerFile>({
    maxSize: RENDERED_FILES_TEXT,
    sizeCalculation: (file) => file.ini.length,
    ttl: RENDERED_FILE_TTL_MS,
  });
  async function current(
    caller: Caller | null,
    modpackId: string,
    request: ServerFileRequest,
  ): Promise<CurrentServerFile> {
    const access = await authorizeModpack(db, caller, modpackId, "read");
    if (request.revision !== undefined) return gate.run(() => renderCurrentServerFile(db, access, request));
    const key = `${access.id} ${access.version} ${request.version} ${request.idForm ?? ""}`;
    const known = rendered.get(key);
    if (known) return known;
    const file = await gate.run(() => renderCurrentServerFile(db, access, request));
    rendered.set(key, file);
    return file;
  }
  return {
    current,
    async patch(
      caller: Caller | null,
      modpackId: string,
      request: ServerFileRequest,
      text: string,
    ): Promise<ServerFilePatch & { errors: number; revision: number }> {
      const file = await current(caller, modpackId, request);
      return gate.run(() => patchedServerFile(db, file, text));
    },
  };
}
