import type { GameVersion, ServerFileFormat } from "@modpack/contract";

/** Where the service runs, without a trailing slash. */
function base(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

function modpackPath(modpackId: string): string {
  return `/modpacks/${encodeURIComponent(modpackId)}/server-file`;
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
  const query = new URLSearchParams({
    version: options.version,
    ...(options.format ? { format: options.format } : {}),
  });
  return `${base(baseUrl)}${modpackPath(modpackId)}?${query}`;
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
  const query = new URLSearchParams({
    version: options.version,
    ...(options.format ? { format: options.format } : {}),
  });
  return `${base(baseUrl)}${modpackPath(modpackId)}/patch?${query}`;
}
