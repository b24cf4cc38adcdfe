import type { Role, TokenScope } from "@modpack/contract";
import { LRUCache } from "lru-cache";
import type { Db } from "../db/database.js";
import { type Revocation, revokes } from "../services/ports.js";
import { API_TOKEN_PREFIX, generateSecret, hashSecret } from "./secrets.js";

export const SESSION_TTL_MS = 5 * 60 * 1000;
/** A cached lookup is trusted for at most this long before the store is asked again. */
export const CACHE_TTL_MS = 5 * 60 * 1000;
/** The sliding expiry is written back at most this often per session. */
export const EXPIRY_WRITE_INTERVAL_MS = 30 * 1000;
const TOKEN_USE_WRITE_INTERVAL_MS = 60 * 1000;
const CACHE_MAX_ENTRIES = 20_000;

export interface ValidCredential {
  kind: "session" | "token";
  /** The session id or the API token id. */
  id: string;
  userId: string;
  role: Role;
  expiresAt: Date;
  /** An API token's scopes; absent for sessions. */
  scopes?: readonly TokenScope[];
  /** The modpacks an API token is limited to; absent when it has no limit. */
  modpackIds?: readonly string[];
}

interface CacheEntry extends Omit<ValidCredential, "expiresAt"> {
  expiresAt: number;
  /** For sessions: the expiry last written to the database; for tokens: when last_used_at was written. */
  written: number;
}

export interface SessionStore {
  createSession(userId: string): Promise<{ token: string; sessionId: string; expiresAt: Date }>;
  /** Checks a session token, sliding its expiry; null when unknown, expired or revoked. */
  validateSession(token: string): Promise<ValidCredential | null>;
  /** Checks an API token and records its use; null when unknown, expired or revoked. */
  validateApiToken(token: string): Promise<ValidCredential | null>;
  /** Forgets the cached credentials a revocation ends; called by the revocation channel. */
  evict(revocation: Revocation): void;
  /** Forgets everything cached (after a gap in revocation messages). */
  clear(): void;
  /** The current expiry of a session (slid by its latest use) or token and its user's role; null when gone. */
  current(kind: "session" | "token", id: string): Promise<{ expiresAt: number; role: Role } | null>;
}

function credentialOf({ expiresAt, written: _written, ...entry }: CacheEntry): ValidCredential {
  return { ...entry, expiresAt: new Date(expiresAt) };
}

/**
 * Creates sessions and checks sessions and API tokens: only hashes stored, lookups cached, a
 * session's expiry sliding. `now` is the clock.
 */
export function createSessionStore(db: Db, now: () => number = Date.now): SessionStore {
  // Lookups by token hash: trusted for CACHE_TTL_MS from when they were read, least recently used
  // dropped first when full. A stale entry stays readable with `peek` (its sliding expiry) until replaced.
  const cache = new LRUCache<string, CacheEntry>({
    max: CACHE_MAX_ENTRIES,
    ttl: CACHE_TTL_MS,
    perf: { now },
    ttlResolution: 0,
    noDeleteOnStaleGet: true,
  });

  return {
    async createSession(userId) {
      const token = generateSecret();
      const expiresAt = new Date(now() + SESSION_TTL_MS);
      const row = await db
        .insertInto("sessions")
        .values({ tokenHash: hashSecret(token), userId, expiresAt })
        .returning("id")
        .executeTakeFirstOrThrow();
      return { token, sessionId: row.id, expiresAt };
    },

    async validateSession(token) {
      if (token.length < 20 || token.length > 200 || token.startsWith(API_TOKEN_PREFIX)) return null;
      const hash = hashSecret(token);
      const at = now();
      let entry = cache.get(hash);
      if (!entry) {
        const previous = cache.peek(hash, { allowStale: true });
        const row = await db
          .selectFrom("sessions")
          .innerJoin("users", "users.id", "sessions.userId")
          .select(["sessions.id", "sessions.userId", "sessions.expiresAt", "users.role"])
          .where("sessions.tokenHash", "=", hash)
          .executeTakeFirst();
        if (!row) {
          cache.delete(hash);
          return null;
        }
        const stored = row.expiresAt.getTime();
        // The database lags the sliding expiry by at most the write interval; keep the later one.
        const expiresAt = Math.max(stored, previous?.id === row.id ? previous.expiresAt : 0);
        entry = { ...row, kind: "session", expiresAt, written: stored };
        cache.set(hash, entry);
      }
      if (entry.expiresAt <= at) {
        cache.delete(hash);
        await db.deleteFrom("sessions").where("id", "=", entry.id).execute();
        return null;
      }
      entry.expiresAt = at + SESSION_TTL_MS;
      if (entry.expiresAt - entry.written >= EXPIRY_WRITE_INTERVAL_MS) {
        entry.written = entry.expiresAt;
        await db
          .updateTable("sessions")
          .set({ expiresAt: new Date(entry.expiresAt) })
          .where("id", "=", entry.id)
          .execute();
      }
      return credentialOf(entry);
    },

    async validateApiToken(token) {
      if (!token.startsWith(API_TOKEN_PREFIX) || token.length > 200) return null;
      const hash = hashSecret(token);
      const at = now();
      let entry = cache.get(hash);
      if (!entry) {
        const row = await db
          .selectFrom("apiTokens")
          .innerJoin("users", "users.id", "apiTokens.userId")
          .select([
            "apiTokens.id",
            "apiTokens.userId",
            "apiTokens.expiresAt",
            "apiTokens.lastUsedAt",
            "apiTokens.scopes",
            "apiTokens.modpackIds",
            "users.role",
          ])
          .where("apiTokens.tokenHash", "=", hash)
          .executeTakeFirst();
        if (!row?.expiresAt) {
          cache.delete(hash);
          return null;
        }
        const { expiresAt, lastUsedAt, modpackIds, ...token } = row;
        entry = {
          ...token,
          kind: "token",
          expiresAt: expiresAt.getTime(),
          written: lastUsedAt?.getTime() ?? 0,
          ...(modpackIds ? { modpackIds } : {}),
        };
        cache.set(hash, entry);
      }
      if (entry.expiresAt <= at) {
        cache.delete(hash);
        return null;
      }
      if (at - entry.written >= TOKEN_USE_WRITE_INTERVAL_MS) {
        entry.written = at;
        await db
          .updateTable("apiTokens")
          .set({ lastUsedAt: new Date(at) })
          .where("id", "=", entry.id)
          .execute();
      }
      return credentialOf(entry);
    },

    evict(revocation) {
      for (const [hash, entry] of [...cache.entries()]) {
        if (revokes(revocation, entry)) cache.delete(hash);
      }
    },

    clear() {
      cache.clear();
    },

    async current(kind, id) {
      const row =
        kind === "session"
          ? await db
              .selectFrom("sessions")
              .innerJoin("users", "users.id", "sessions.userId")
              .select(["sessions.expiresAt", "users.role"])
              .where("sessions.id", "=", id)
              .executeTakeFirst()
          : await db
              .selectFrom("apiTokens")
              .innerJoin("users", "users.id", "apiTokens.userId")
              .select(["apiTokens.expiresAt", "users.role"])
              .where("apiTokens.id", "=", id)
              .executeTakeFirst();
      if (!row?.expiresAt) return null;
      // A session's stored expiry lags its use by up to the write interval; the cache knows the latest.
      let expiresAt = row.expiresAt.getTime();
      for (const entry of cache.values()) {
        if (entry.kind === kind && entry.id === id) expiresAt = Math.max(expiresAt, entry.expiresAt);
      }
      return expiresAt > now() ? { expiresAt, role: row.role } : null;
    },
  };
}
