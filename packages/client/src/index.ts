import type { AppRouter } from "@modpack/contract";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

export type {
  AdminStats,
  AdminUser,
  ApiToken,
  AppRouter,
  CreatedMod,
  CreatedToken,
  CreatedWebhook,
  CurrentServerFile,
  ErrorBody,
  ErrorIssue,
  ErrorResponseBody,
  ExportConfiguration,
  ExportEventData,
  ExportRequested,
  ExportStatus,
  GameVersion,
  IdForm,
  ImportFinishedData,
  ImportStarted,
  ImportStatus,
  Member,
  MemberPermission,
  Mod,
  Modpack,
  ModpackAccess,
  ModpackChangedData,
  ModpackMod,
  ModpackModLink,
  ModpackSummary,
  ModsUpdatedData,
  Notification,
  NotificationType,
  Paged,
  Pagination,
  Permission,
  Role,
  ServerFileChanges,
  ServerFileFormat,
  ServerFilePatch,
  ServerImage,
  SessionInfo,
  TagList,
  User,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
  WebhookEventType,
  WebhookFormat,
  WebhookTestData,
} from "@modpack/contract";
export {
  type ClientCredentials,
  type ClientHeaders,
  type ClientOptions,
  createClient,
  type ModpackClient,
  type NotificationStream,
  type NotificationSubscriptionOptions,
} from "./client.js";
export { type ApiError, type ApiErrorCode, type ApiIssue, fromErrorBody, isApiError, toApiError } from "./errors.js";
export { serverFilePatchUrl, serverFileUrl } from "./server-file.js";

/** The input of every procedure: `RouterInputs["modpacks"]["create"]`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** The output of every procedure: `RouterOutputs["modpacks"]["get"]`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
