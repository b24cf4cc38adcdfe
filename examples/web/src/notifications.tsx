import type { Notification } from "@modpack/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { serviceUrl, useTRPC } from "./api";
import { ErrorNotice, Loading } from "./components";

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

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "short" });

const RECENT = 20;

/**
 * The signed-in user's recent notifications, then each new one as the service creates it, pushed
 * over Server-Sent Events into the same cached list. A server file or an import finishing also
 * refreshes what is on screen about it.
 */
export function LiveNotifications() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const recentKey = trpc.notifications.list.queryKey({ limit: RECENT });
  const recent = useQuery(trpc.notifications.list.queryOptions({ limit: RECENT }));
  const stream = useSubscription(
    trpc.notifications.stream.subscriptionOptions(undefined, {
      onData: (notification) => {
        queryClient.setQueryData(recentKey, (list) =>
          list && !list.notifications.some((item) => item.id === notification.id)
            ? {
                notifications: [notification, ...list.notifications].slice(0, RECENT),
                unreadCount: list.unreadCount + (notification.isRead ? 0 : 1),
              }
            : list,
        );
        void queryClient.invalidateQueries({ queryKey: trpc.exports.status.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.modpackMods.list.pathKey() });
      },
    }),
  );
  const markAllRead = useMutation(
    trpc.notifications.markAllRead.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.notifications.list.pathKey() }),
    }),
  );
  const unread = recent.data?.unreadCount ?? 0;

  return (
    <section className="notifications" aria-label="Notifications">
      <div className="notifications-head">
        <h2>
          Notifications <span className={`live live-${stream.status}`}>{streamLabel[stream.status]}</span>
        </h2>
        {unread > 0 && (
          <button
            type="button"
            className="button-quiet button-small"
            disabled={markAllRead.isPending}
            onClick={() => markAllRead.mutate()}
          >
            Mark {unread} read
          </button>
        )}
      </div>
      {stream.status === "error" && <ErrorNotice error={stream.error} title="Live updates stopped." />}
      <ErrorNotice error={markAllRead.error} title="Could not mark them read." />
      {recent.isPending ? (
        <Loading label="Loading notifications…" />
      ) : recent.isError ? (
        <ErrorNotice error={recent.error} />
      ) : recent.data.notifications.length === 0 ? (
        <p className="muted">Nothing yet. Finished server files and imports show up here as they happen.</p>
      ) : (
        <ul aria-live="polite">
          {recent.data.notifications.map((notification) => {
            const download = downloadPath(notification);
            return (
              <li
                key={notification.id}
                className={`notification notification-${notification.type}${notification.isRead ? "" : " notification-unread"}`}
              >
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
