import type { Services } from "@modpack/contract";
import { z } from "zod";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";

const HEARTBEAT_MS = 15_000;

/**
 * `GET /notifications/stream`: the REST twin of the `notifications.stream` subscription, as
 * Server-Sent Events. Each new notification of the caller is one `notification` event whose data
 * is the Notification JSON; a comment line every 15 s keeps proxies from closing the connection.
 */
export function notificationStreamRoutes(deps: {
  notifications: Services["notifications"];
  /** A client that leaves more than this many bytes unread is dropped. */
  maxBufferedBytes: number;
}): RouteModule {
  const stream = defineRoute({
    method: "GET",
    path: "/notifications/stream",
    tags: ["Notifications"],
    operationId: "streamNotifications",
    summary: "Stream your new notifications (SSE)",
    description:
      "Server-Sent Events: each notification created for you from now on arrives as an event named `notification` whose `data` is the Notification JSON, within moments of the change that caused it, from whichever server instance made it. A comment line is sent every 15 s. Browsers can use `new EventSource(url, { withCredentials: true })`; TypeScript clients get the same through the typed client's `onNotification`.",
    permission: "notification.read",
    wholeAccount: true,
    config: { longLived: true },
    responses: {
      200: {
        description: "An endless event stream",
        content: {
          "text/event-stream": {
            schema: z.string(),
            example:
              'id: 0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d\nevent: notification\ndata: {"id":"0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d","title":"Server file ready",...}\n\n',
          },
        },
      },
    },
    async handler({ request, reply, caller }) {
      const abort = new AbortController();
      request.raw.on("close", () => abort.abort());
      // Subscribed before the client sees the stream open, so nothing created after that is missed.
      const notifications = deps.notifications.stream(caller, abort.signal);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      // A client that does not read is dropped once its unsent output passes the bound.
      const send = (text: string) => {
        if (raw.destroyed) return;
        raw.write(text);
        if (raw.writableLength > deps.maxBufferedBytes) {
          raw.destroy();
          abort.abort();
        }
      };
      send(": connected\n\n");
      const heartbeat = setInterval(() => send(": ping\n\n"), HEARTBEAT_MS);
      try {
        for await (const notification of notifications) {
          send(`id: ${notification.id}\nevent: notification\ndata: ${JSON.stringify(notification)}\n\n`);
        }
      } finally {
        clearInterval(heartbeat);
        raw.end();
      }
    },
  });
  return routeModule([stream]);
}
