/** The endpoints the benchmark drives, and how each maps to the service code that answers it. */
import type { Seeded } from "./seed.js";

export type EndpointId =
  | "publicList"
  | "publicSearch"
  | "modpackGet"
  | "modpackMods"
  | "modsSearch"
  | "modpackCreate"
  | "modpackCheck";

export interface Endpoint {
  id: EndpointId;
  method: "GET" | "POST";
  path: string;
  /** Sends the bench user's session cookie. */
  signedIn: boolean;
  /** A read: the "≥ 80 % of baseline" and "≤ 1.5 × the baseline's CPU per request" targets apply. */
  read: boolean;
  /** A list endpoint: the p99 target at 16 connections applies (the larger of 25 ms and a quarter above the baseline's; see README). */
  list: boolean;
  /** A varying JSON body, for writes. */
  body?: (n: number) => Record<string, unknown>;
}

export interface Words {
  /** Matches some modpack names or descriptions (ILIKE '%word%'). */
  modpackSearch: string;
  /** Matches some mod names or descriptions. */
  modSearch: string;
  /** A tag some of the big modpack's mods carry. */
  tag: string;
}

export const WORDS: Words = { modpackSearch: "raven", modSearch: "generator", tag: "Weapons" };

export function endpoints(seeded: Seeded, words: Words = WORDS): Endpoint[] {
  return [
    { id: "publicList", method: "GET", path: "/modpacks/public?limit=20", signedIn: false, read: true, list: true },
    {
      id: "publicSearch",
      method: "GET",
      path: `/modpacks/public?limit=20&search=${encodeURIComponent(words.modpackSearch)}`,
      signedIn: false,
      read: true,
      list: true,
    },
    {
      id: "modpackGet",
      method: "GET",
      path: `/modpacks/${seeded.bigModpackId}`,
      signedIn: true,
      read: true,
      list: false,
    },
    {
      id: "modpackMods",
      method: "GET",
      path: `/modpacks/${seeded.bigModpackId}/mods?limit=50&tags=${encodeURIComponent(words.tag)}`,
      signedIn: true,
      read: true,
      list: true,
    },
    {
      // The check of the 1,000-mod modpack: its target is a median of at most 100 ms at 1 connection
      // (not the baseline ratio, since the baseline only replays the SQL and skips the check itself).
      id: "modpackCheck",
      method: "GET",
      path: `/modpacks/${seeded.bigModpackId}/check?version=42x`,
      signedIn: true,
      read: false,
      list: false,
    },
    {
      id: "modsSearch",
      method: "GET",
      path: `/mods?search=${encodeURIComponent(words.modSearch)}`,
      signedIn: false,
      read: true,
      list: true,
    },
    {
      id: "modpackCreate",
      method: "POST",
      path: "/modpacks",
      signedIn: true,
      read: false,
      list: false,
      body: (n) => ({
        name: `Bench pack ${n}`,
        description: `Created by the benchmark, request ${n}: firearms, vehicles and a helicopter event.`,
        isPublic: n % 2 === 0,
      }),
    },
  ];
}
