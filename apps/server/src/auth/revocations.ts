import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import type { DatabaseHandle } from "../db/database.js";
import { listen } from "../db/listen.js";
import type { Revocation, RevocationPublisher } from "../services/ports.js";

const REVOCATION_CHANNEL = "auth_revocations";

export interface RevocationChannel extends RevocationPublisher {
  close(): Promise<void>;
}

/** A revocation as the channel's message carries it: `<kind>:<id>`. */
function encode(revocation: Revocation): string {
  return `${revocation.kind}:${revocation.id}`;
}

/** A message read back; null for one no instance of this service sends. */
function decode(message: string): Revocation | null {
  const match = /^(session|token|user):(.+)$/.exec(message);
  return match ? { kind: match[1] as Revocation["kind"], id: match[2] as string } : null;
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
  const publish = async (revocation: Revocation) => {
    await sql`select pg_notify(${REVOCATION_CHANNEL}, ${encode(revocation)})`.execute(database.db);
  };
  const onMessage = (message: string) => {
    const revocation = decode(message);
    if (revocation) onRevoked(revocation);
  };
  const listener = await listen({ database, channel: REVOCATION_CHANNEL, logger, onMessage, onGap });
  return { publish, close: () => listener.close() };
}
