import type { FastifyBaseLogger } from "fastify";
import { sql } from "kysely";
import pg from "pg";
import type { DatabaseHandle } from "../db/database.js";

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

  if (database.kind === "pglite") {
    const unsubscribe = await database.pglite.listen(REVOCATION_CHANNEL, (payload) => onMessage(payload));
    return { publish, close: () => unsubscribe() };
  }

  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: database.connectionString,
      application_name: "modpack-auth-listen",
    });
    next.on("notification", (message) => {
      if (message.channel === REVOCATION_CHANNEL && message.payload) onMessage(message.payload);
    });
    next.on("error", (error) => {
      logger.warn({ err: error }, "revocation listener lost its connection");
      reconnect();
    });
    await next.connect();
    await next.query(`listen ${REVOCATION_CHANNEL}`);
    client = next;
  };
  const reconnect = () => {
    if (closed || retry) return;
    const lost = client;
    client = undefined;
    lost?.end().catch(() => {});
    onGap();
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(onGap, (error: unknown) => {
        logger.warn({ err: error }, "revocation listener could not reconnect");
        reconnect();
      });
    }, 1000);
  };
  await connect();
  return {
    publish,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
