import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import type { DatabaseHandle } from "../db/database.js";
import { listen } from "../db/listen.js";

export const REVOCATION_CHANNEL = "auth_revocations";

export interface RevocationChannel {
  /** Tells every instance (this one included) to forget what it cached under `key`. */
  publish(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Postgres LISTEN/NOTIFY fan-out of revocations, so a sign-out or a token revocation takes effect
 * at once on every server instance sharing the database. `onMessage` gets each key; `onGap` is
 * called when the listening connection was lost (messages may have been missed).
 */
export async function openRevocationChannel(options: {
  database: DatabaseHandle;
  logger: FastifyBaseLogger;
  onMessage: (key: string) => void;
  onGap: () => void;
}): Promise<RevocationChannel> {
  const { database, logger, onMessage, onGap } = options;
  const publish = async (key: string) => {
    await sql`select pg_notify(${REVOCATION_CHANNEL}, ${key})`.execute(database.db);
  };

  const listener = await listen({ database, channel: REVOCATION_CHANNEL, logger, onMessage, onGap });
  return { publish, close: () => listener.close() };
}
