import type { Role } from "@modpack/contract";
import type { Db } from "../db/database.js";
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
}

interface CacheEntry {
  kind: "session" | "token";
  id: string;
  userId: string;
  role: Role;
  expiresAt: number;
  /** For sessions: the expiry last written to the database; for tokens: when last_used_at was written. */
  written: number;
  cachedAt: number;
}

export interface SessionStore {
  createSession(userId: string): Promise<{ token: string; sessionId: string; expiresAt: Date }>;
  /** Checks a session token, sliding its expiry; null when unknown, expired or revoked. */
  validateSession(token: string): Promise<ValidCredential | null>;
  /** Checks an API token and records its use; null when unknown, expired or revoked. */
  validateApiToken(token: string): Promise<ValidCredential | null>;
  createApiToken(
    userId: string,
    name: string,
    expiresInDays: number,
  ): Promise<{ token: string; id: string; createdAt: Date; expiresAt: Date }>;
  /** Forgets cached entries for `session:<id>`, `token:<id>` or `user:<id>`; called by the revocation channel. */
  evict(key: string): void;
  /** Forgets everything cached (after a gap in revocation messages). */
  clear(): void;
}

/** Sessions and API tokens: only hashes stored, lookups cached, expiry sliding. `now` is the clock. */
export function createSessionStore(db: Db, now: () => number = Date.now): SessionStore {
  const cache = new Map<string, CacheEntry>();

  const remember = (hash: string, entry: CacheEntry) => {
    if (cache.size >= CACHE_MAX_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(hash, entry);
  };

  /** The cached entry when it is young enough to trust, else undefined. */
  const cached = (hash: string, at: number): CacheEntry | undefined => {
    const entry = cache.get(hash);
    return entry && at - entry.cachedAt < CACHE_TTL_MS ? entry : undefined;
  };

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
      let entry = cached(hash, at);
      if (!entry) {
        const previous = cache.get(hash);
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
        entry = {
          kind: "session",
          id: row.id,
          userId: row.userId,
          role: row.role,
          expiresAt,
          written: stored,
          cachedAt: at,
        };
        remember(hash, entry);
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
      return {
        kind: "session",
        id: entry.id,
        userId: entry.userId,
        role: entry.role,
        expiresAt: new Date(entry.expiresAt),
      };
    },

    async validateApiToken(token) {
      if (!token.startsWith(API_TOKEN_PREFIX) || token.length > 200) return null;
      const hash = hashSecret(token);
      const at = now();
      let entry = cached(hash, at);
      if (!entry) {
        const row = await db
          .selectFrom("apiTokens")
          .innerJoin("users", "users.id", "apiTokens.userId")
          .select(["apiTokens.id", "apiTokens.userId", "apiTokens.expiresAt", "apiTokens.lastUsedAt", "users.role"])
          .where("apiTokens.tokenHash", "=", hash)
          .executeTakeFirst();
        if (!row?.expiresAt) {
          cache.delete(hash);
          return null;
        }
        entry = {
          kind: "token",
          id: row.id,
          userId: row.userId,
          role: row.role,
          expiresAt: row.expiresAt.getTime(),
          written: row.lastUsedAt?.getTime() ?? 0,
          cachedAt: at,
        };
        remember(hash, entry);
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
      return {
        kind: "token",
        id: entry.id,
        userId: entry.userId,
        role: entry.role,
        expiresAt: new Date(entry.expiresAt),
      };
    },

    async createApiToken(userId, name, expiresInDays) {
      const token = generateSecret(API_TOKEN_PREFIX);
      const expiresAt = new Date(now() + expiresInDays * 24 * 60 * 60 * 1000);
      const row = await db
        .insertInto("apiTokens")
        .values({ userId, name, tokenHash: hashSecret(token), expiresAt })
        .returning(["id", "createdAt"])
        .executeTakeFirstOrThrow();
      return { token, id: row.id, createdAt: row.createdAt, expiresAt };
    },

    evict(key) {
      const [kind, id] = key.split(":");
      for (const [hash, entry] of cache) {
        if ((kind === "user" && entry.userId === id) || (entry.kind === kind && entry.id === id)) cache.delete(hash);
      }
    },

    clear() {
      cache.clear();
    },
  };
}
