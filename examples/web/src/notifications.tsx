import type { Notification } from "@modpack/client";
import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import { serviceUrl, useTRPC } from "./api";
import { ErrorNotice } from "./components";

/** The download path a "Server file ready" notification carries in its metadata. */
function downloadPath(notification: Notification): string | null {
  try {
    const metadata = JSON.parse(notification.metadata) as { exportId?: unknown };
    return notification.title === "Server file ready" && typeof metadata.exportId === "string"
      ? `/modpacks/export/${encodeURIComponent(metadata.exportId)}/download`
      : null;
  } catch {
    return null;
  }
}

/** The subscription's state in words: `pending` is connected and waiting for the next notification. */
const streamLabel = { idle: "off", connecting: "connecting", pending: "live", error: "stopped" } as const;

const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });

/**
 * The signed-in user's notifications as the service creates them, pushed over Server-Sent Events.
 * A server file or an import finishing also refreshes what is on screen about it.
 */
export function LiveNotifications() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [received, setReceived] = useState<Notification[]>([]);
  const stream = useSubscription(
    trpc.notifications.stream.subscriptionOptions(undefined, {
      onData: (notification) => {
        setReceived((previous) => [notification, ...previous.filter((item) => item.id !== notification.id)]);
        void queryClient.invalidateQueries({ queryKey: trpc.exports.status.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.modpackMods.list.pathKey() });
      },
    }),
  );

  return (
    <section className="notifications" aria-label="Notifications">
      <h2>
        Notifications <span className={`live live-${stream.status}`}>{streamLabel[stream.status]}</span>
      </h2>
      {stream.status === "error" && <ErrorNotice error={stream.error} title="Live updates stopped." />}
      {received.length === 0 ? (
        <p className="muted">Nothing new yet. Finished server files and imports show up here as they happen.</p>
      ) : (
        <ul>
          {received.map((notification) => {
            const download = downloadPath(notification);
            return (
              <li key={notification.id} className={`notification notification-${notification.type}`}>
                <p>
                  <strong>{notification.title}</strong>{" "}
                  <time dateTime={notification.createdAt}>{timeFormat.format(new Date(notification.createdAt))}</time>
                </p>
                <p>{notification.content}</p>
                {download && (
                  <a className="button button-small" href={serviceUrl(download)}>
                    Download
                  </a>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
