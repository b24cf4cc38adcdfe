import { type AppRouter, createClient } from "@modpack/client";
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
