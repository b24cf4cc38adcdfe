import type { GameVersion, IdForm, ServerFileFormat, ServerImage } from "@modpack/contract";

/** `<baseUrl>/modpacks/<id>/server-file<suffix>?version=...&format=...`, without a doubled slash. */
function serverFileAddress(
  baseUrl: string,
  modpackId: string,
  suffix: string,
  options: { version: GameVersion; format?: string; image?: ServerImage; idForm?: IdForm },
): string {
  const query = new URLSearchParams({
    version: options.version,
    ...(options.format ? { format: options.format } : {}),
    ...(options.image ? { image: options.image } : {}),
    ...(options.idForm ? { idForm: options.idForm } : {}),
  });
  return `${baseUrl.replace(/\/+$/, "")}/modpacks/${encodeURIComponent(modpackId)}/server-file${suffix}?${query}`;
}

/**
 * The URL of a modpack's current server file (`GET`, plain text, no tRPC): what a start script
 * fetches, e.g. with `curl -fsS -H "Authorization: Bearer $TOKEN" "$URL"`. `format` defaults to `ini`;
 * `image` encodes the `env` form for one server image's start step; `idForm` (42x) names the ids.
 */
export function serverFileUrl(
  baseUrl: string,
  modpackId: string,
  options: { version: GameVersion; format?: ServerFileFormat; image?: ServerImage; idForm?: IdForm },
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
  options: { version: GameVersion; format?: "ini" | "json"; idForm?: IdForm },
): string {
  return serverFileAddress(baseUrl, modpackId, "/patch", options);
}
