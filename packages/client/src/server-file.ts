import type { GameVersion, ServerFileFormat } from "@modpack/contract";

/** `<baseUrl>/modpacks/<id>/server-file<suffix>?version=...&format=...`, without a doubled slash. */
function serverFileAddress(
  baseUrl: string,
  modpackId: string,
  suffix: string,
  options: { version: GameVersion; format?: string },
): string {
  const query = new URLSearchParams({
    version: options.version,
    ...(options.format ? { format: options.format } : {}),
  });
  return `${baseUrl.replace(/\/+$/, "")}/modpacks/${encodeURIComponent(modpackId)}/server-file${suffix}?${query}`;
}

/**
 * The URL of a modpack's current server file (`GET`, plain text, no tRPC): what a start script
 * fetches, e.g. with `curl -fsS -H "Authorization: Bearer $TOKEN" "$URL"`. `format` defaults to `ini`.
 */
export function serverFileUrl(
  baseUrl: string,
  modpackId: string,
  options: { version: GameVersion; format?: ServerFileFormat },
): string {
  return serverFileAddress(baseUrl, modpackId, "", options);
}

/**
 * The URL that patches a whole `servertest.ini` (`POST` it as `text/plain`): the answer is the same
 * file with the modpack's `Mods=`, `WorkshopItems=` and `Map=`. `format: "json"` answers
 * `{ content, changes }`.
 */
export function serverFilePatchUrl(
  baseUrl: string,
  modpackId: string,
  options: { version: GameVersion; format?: "ini" | "json" },
): string {
  return serverFileAddress(baseUrl, modpackId, "/patch", options);
}
