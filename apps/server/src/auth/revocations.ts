import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import type { DatabaseHandle } from "../db/database.js";
import { listen } from "../db/listen.js";
import type { Revocation, RevocationPublisher } from "../services/ports.js";

const REVOCATION_CHANNEL = "auth_revocations";

export interface RevocationChannel extends RevocationPublisher {
  close(): Promise<void>;
}

/**
 * Postgres LISTEN/NOTIFY fan-out of revocations, so a sign-out or a token revocation takes effect
 * at once on every server instance sharing the database. `onRevoked` gets each revocation; `onGap`
 * is called when the listening connection was lost (messages may have been missed).
 */
export async function openRevocationChannel(options: {
  database: DatabaseHandle;
  logger: FastifyBaseLogger;
  onRevoked: (revocation: Revocation) => void;
  onGap: () => void;
}): Promise<RevocationChannel> {
  const { database, logger, onRevoked, onGap } = options;
  // A revocation travels as `<kind>:<id>`; a message no instance of this service sends is ignored.
  const publish = async ({ kind, id }: Revocation) => {
    await sql`select pg_notify(${REVOCATION_CHANNEL}, ${`${kind}:${id}`})`.execute(database.db);
  };
  const onMessage = (message: string) => {
    const match = /^(session|token|user):(.+)$/.exec(message);
    if (match) onRevoked({ kind: match[1] as Revocation["kind"], id: match[2] as string });
  };
  const listener = await listen({ database, channel: REVOCATION_CHANNEL, logger, onMessage, onGap });
  return { publish, close: () => listener.close() };
}
