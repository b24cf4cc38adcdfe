import {
  type ApiError,
  type AppRouter,
  createClient,
  fromErrorBody,
  type GameVersion,
  type IdForm,
  type ServerFileFormat,
  type ServerImage,
  serverFileUrl,
} from "@modpack/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";

/** Where the Modpack Collection Service runs; the app itself is on another origin the service allows. */
export const API_URL = (import.meta.env.VITE_API_URL ?? "http://localhost:3000").replace(/\/+$/, "");

/** The typed TanStack Query options of every procedure, from the client's `AppRouter`. */
export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** One client for the app: the session cookie the service set at sign-in goes with every call. */
export const createApiClient = () => createClient({ baseUrl: API_URL });

/** The service's sign-in page, which sends the browser back to where it was once signed in. */
export const signInUrl = () => `${API_URL}/auth/idp?redirectTo=${encodeURIComponent(window.location.href)}`;

/** Ends the session: the service clears its cookie. */
export async function signOut(): Promise<void> {
  await fetch(`${API_URL}/auth/sign-out`, { method: "POST", credentials: "include" });
}

/** A download path the service answers (`/modpacks/export/{id}/download`) as a link the browser can follow. */
export const serviceUrl = (path: string) => `${API_URL}${path}`;

/** The current server file as `GET /modpacks/{id}/server-file` answers it, with what its headers say. */
export interface ServerFileAnswer {
  body: string;
  etag: string | null;
  /** `Modpack-Check-Errors`: how many errors the check finds for this version. */
  checkErrors: number;
}

/**
 * Reads the current server file. It is a plain route, not on /trpc, so it is fetched as any
 * script would, with the session cookie; a refusal throws the service's words as an `ApiError`.
 */
export async function fetchServerFile(
  id: string,
  options: { version: GameVersion; format: ServerFileFormat; image?: ServerImage; idForm?: IdForm },
  signal?: AbortSignal,
): Promise<ServerFileAnswer> {
  let response: Response;
  try {
    response = await fetch(serverFileUrl(API_URL, id, options), { credentials: "include", signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    const unreachable: ApiError = { status: 0, code: "NETWORK_ERROR", message: "The service cannot be reached." };
    throw unreachable;
  }
  const body = await response.text();
  if (!response.ok) throw fromErrorBody(response.status, parseJson(body));
  return {
    body,
    etag: response.headers.get("ETag"),
    checkErrors: Number(response.headers.get("Modpack-Check-Errors") ?? 0),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
