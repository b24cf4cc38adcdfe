import { z } from "zod";
import { resource } from "../ports.js";
import { idParams } from "../schemas/common.js";
import {
  notificationListInput,
  notificationListSchema,
  notificationSchema,
  readAllResultSchema,
} from "../schemas/notification.js";
import { operation, protectedProcedure, router } from "../trpc.js";

const tags = ["Notifications"];

export const notificationPorts = resource("notifications", {
  list: { caller: true, input: notificationListInput, output: notificationListSchema },
  markRead: { caller: true, input: idParams, output: notificationSchema },
  markAllRead: { caller: true, output: readAllResultSchema },
  /** The caller's new notifications as they are created, until the signal aborts. */
  stream: { caller: true, output: notificationSchema, stream: true },
});
const { of: service, schemas, call } = notificationPorts;

export const notificationsRouter = router({
  list: operation({
    method: "GET",
    path: "/notifications",
    tags,
    summary: "List your notifications",
    description:
      "Your notifications, read and unread, newest first: at most `limit` (default 50, max 100); `unreadOnly=true` keeps the unread ones.",
    operationId: "listNotifications",
    wholeAccount: true,
    success: "Your newest notifications, and how many are unread.",
    permission: "notification.read",
  })
    .concat(schemas.list)
    .query(call("list")),
  markAllRead: operation({
    method: "PATCH",
    path: "/notifications/read-all",
    tags,
    summary: "Mark all your notifications read",
    description: "Marks every unread notification of yours read and answers how many changed.",
    operationId: "markAllNotificationsRead",
    wholeAccount: true,
    success: "How many notifications were marked read.",
    permission: "notification.update",
  })
    .concat(schemas.markAllRead)
    .mutation(({ ctx }) => service(ctx).markAllRead(ctx.caller)),
  stream: protectedProcedure
    .meta({ permission: "notification.read", wholeAccount: true })
    .input(z.void())
    .subscription(async function* ({ ctx, signal }) {
      yield* service(ctx).stream(ctx.caller, signal ?? new AbortController().signal);
    }),
  markRead: operation({
    method: "PATCH",
    path: "/notifications/{id}/read",
    tags,
    summary: "Mark a notification read",
    description:
      "Marks one of your notifications read and answers it with `isRead` true and `updatedAt` set to now. Only the recipient may do this (403 `Access denied`); an unknown id is 404.",
    operationId: "markNotificationRead",
    wholeAccount: true,
    success: "The notification, marked read.",
    permission: "notification.update",
    errors: [403, 404],
  })
    .concat(schemas.markRead)
    .mutation(({ ctx, input }) => service(ctx).markRead(ctx.caller, input)),
});
