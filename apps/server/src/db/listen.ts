import type { FastifyBaseLogger } from "fastify";
import pg from "pg";
import type { DatabaseHandle } from "./database.js";

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTENs on a Postgres channel for the life of the process. On Postgres it holds one dedicated
 * connection and reconnects when it drops, calling `onGap` (messages sent meanwhile were missed);
 * on the embedded database NOTIFY is delivered in-process.
 */
export async function listen(options: {
  database: DatabaseHandle;
  channel: string;
  logger: FastifyBaseLogger;
  onMessage: (payload: string) => void;
  onGap?: () => void;
}): Promise<Listener> {
  const { database, channel, logger, onMessage } = options;
  const onGap = options.onGap ?? (() => {});
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel name ${channel}`);

  if (database.kind === "pglite") {
    const unsubscribe = await database.pglite.listen(channel, (payload) => onMessage(payload));
    return { close: () => unsubscribe() };
  }

  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: database.connectionString, application_name: `modpack-${channel}` });
    next.on("notification", (message) => {
      if (message.channel === channel && message.payload) onMessage(message.payload);
    });
    next.on("error", (error) => {
      logger.warn({ err: error, channel }, "listener lost its connection");
      reconnect();
    });
    await next.connect();
    await next.query(`listen ${channel}`);
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
        logger.warn({ err: error, channel }, "listener could not reconnect");
        reconnect();
      });
    }, 1000);
  };
  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
