import { z } from "zod";
import { timestamp, uuid } from "./common.js";
import { queryBoolean, queryInt } from "./pagination.js";

export const notificationTypes = ["info", "success", "warning", "error"] as const;

export const notificationSchema = z
  .object({
    id: uuid,
    userId: uuid.meta({ description: "The recipient" }),
    title: z.string(),
    content: z.string(),
    type: z.enum(notificationTypes),
    isRead: z.boolean(),
    metadata: z.string().meta({ description: "A JSON document encoded as a string" }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: "Notification",
    example: {
      id: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d",
      userId: "0193b1c4-5f7e-7a1b-9c2d-000000000001",
      title: "Import finished",
      content: "42 mods were added to Brita's Apocalypse.",
      type: "success",
      isRead: false,
      metadata: '{"modpackId":"0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8e","modsImported":42}',
      createdAt: "2026-11-21T12:00:00.000Z",
      updatedAt: "2026-11-21T12:00:00.000Z",
    },
  });

export const notificationListInput = z.object({
  unreadOnly: queryBoolean.meta({ description: "Only unread notifications (default false)" }),
  limit: queryInt({
    min: 1,
    max: 100,
    fallback: 50,
    description: "At most this many, newest first (1-100, default 50)",
  }),
});

export const notificationListSchema = z
  .object({
    notifications: z.array(notificationSchema).max(100),
    unreadCount: z
      .number()
      .int()
      .meta({ description: "How many of the caller's notifications are unread in all", example: 1 }),
  })
  .meta({ id: "NotificationList" });

export const readAllResultSchema = z
  .object({ updated: z.number().int().meta({ description: "How many notifications were marked read" }) })
  .meta({ id: "ReadAllResult", example: { updated: 3 } });

export type Notification = z.infer<typeof notificationSchema>;
export type NotificationType = (typeof notificationTypes)[number];
