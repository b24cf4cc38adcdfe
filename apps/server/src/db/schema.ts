import type {
  CheckFinding,
  GameVersion,
  ImportFailureReason,
  JobStatus,
  NotificationType,
  Role,
  TokenScope,
  WebhookEventType,
  WebhookFormat,
} from "@modpack/contract";
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type { KeyedMod } from "../modpack/revision-state.js";

/** A timestamp column: read as Date, written as Date or ISO string, defaulted by the database. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string | undefined, string>;

/** Written by a trigger only, never by the service. */
type SearchText = ColumnType<string | null, never, never>;

export interface UsersTable {
  id: Generated<string>;
  name: string;
  email: string | null;
  image: string | null;
  role: Generated<Role>;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
}

export interface AccountsTable {
  provider: string;
  providerUserId: string;
  userId: string;
  createdAt: CreatedAt;
}

export interface SessionsTable {
  id: Generated<string>;
  tokenHash: string;
  userId: string;
  expiresAt: Timestamp;
  createdAt: CreatedAt;
}

export interface ApiTokensTable {
  id: Generated<string>;
  userId: string;
  name: string;
  tokenHash: string;
  expiresAt: NullableTimestamp;
  lastUsedAt: NullableTimestamp;
  createdAt: CreatedAt;
  /** What the token may do: `read`, and `write` unless it is read-only. */
  scopes: Generated<TokenScope[]>;
  /** The modpacks the token is limited to; null: no limit. */
  modpackIds: string[] | null;
}

export interface ModpacksTable {
  id: Generated<string>;
  name: string;
  description: string | null;
  avatarUrl: string | null;
  platformUrl: string | null;
  ownerId: string;
  isPublic: Generated<boolean>;
  isVerified: Generated<boolean>;
  isActive: Generated<boolean>;
  metadata: Json<Record<string, unknown>>;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
  /** Moves (by triggers) whenever anything a modpack read answers changes: the HTTP validator. */
  version: Generated<string>;
  /** What search reads: name and description, normalised (migration 0012). Kept by a trigger. */
  searchText: SearchText;
  /** The newest revision's number (0: none yet). */
  revision: Generated<number>;
  /** Per game version, the newest revision whose latest start report says `started`. */
  lastGoodB41: number | null;
  lastGoodB42: number | null;
}

export interface ModpackMembersTable {
  modpackId: string;
  userId: string;
  permission: string[];
  isActive: Generated<boolean>;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
}

export interface ModpackInvitationsTable {
  modpackId: string;
  /** Lower-cased. */
  email: string;
  permission: string[];
  invitedBy: string;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
  /** After this the invitation is no longer claimed, and the maintenance job deletes it. */
  expiresAt: ColumnType<Date, Date | string, Date | string>;
}

export interface ModsTable {
  id: Generated<string>;
  workshopId: string;
  name: string;
  description: Generated<string>;
  avatarUrl: string | null;
  platformModIds: Generated<string[]>;
  /** The ids named for Build 41; null when only `platformModIds` is known (both builds). */
  modIdsB41: string[] | null;
  /** The ids named for Build 42; null when only `platformModIds` is known (both builds). */
  modIdsB42: string[] | null;
  /** The description parser version that produced the ids; older rows are parsed again by a job. */
  parserVersion: Generated<number>;
  mapFolders: Generated<string[]>;
  requiredWorkshopIds: Generated<string[]>;
  tags: Generated<string[]>;
  timeUpdated: NullableTimestamp;
  isActive: Generated<boolean>;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
  /** Moves (by a trigger) whenever the row changes: the HTTP validator of a mod read. */
  version: Generated<string>;
  /** What search reads: name, description and workshop id, normalised (migration 0012). Kept by a trigger. */
  searchText: SearchText;
}

export interface ModpackModsTable {
  id: Generated<string>;
  modpackId: string;
  modId: string;
  isActive: Generated<boolean>;
  addedBy: string | null;
  addedAt: Timestamp;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
  /** The mod's name and tags, copied by triggers (0011) for sorting and filtering a modpack's links. */
  modName: Generated<string>;
  modTags: Generated<string[]>;
}

export interface NotificationsTable {
  id: Generated<string>;
  userId: string;
  title: string;
  content: string;
  type: NotificationType;
  isRead: Generated<boolean>;
  metadata: Json<Record<string, unknown>>;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
}

export interface ImportFailure {
  workshopId: string;
  reason: ImportFailureReason;
  detail?: string;
}

export interface ImportsTable {
  id: Generated<string>;
  modpackId: string;
  requestedBy: string;
  platformUrl: string;
  collectionId: string;
  status: Generated<JobStatus>;
  modsImported: Generated<number>;
  modsFailed: Generated<number>;
  itemsTotal: number | null;
  itemsDone: Generated<number>;
  failures: Json<ImportFailure[]>;
  error: string | null;
  createdAt: CreatedAt;
  startedAt: NullableTimestamp;
  finishedAt: NullableTimestamp;
}

export interface ExportsTable {
  id: Generated<string>;
  modpackId: string;
  requestedBy: string;
  version: GameVersion;
  status: Generated<JobStatus>;
  fileName: string | null;
  content: string | null;
  error: string | null;
  /** The check's errors and warnings when the file was generated. */
  findings: Json<CheckFinding[]>;
  createdAt: CreatedAt;
  finishedAt: NullableTimestamp;
}

export interface ExportConfigurationsTable {
  modpackId: string;
  modsOrder: string[];
  modConfig: Json<Record<string, { selectedPlatformModIds: string[]; customPlatformModIds?: string[] }>>;
  updatedBy: string | null;
  updatedAt: Timestamp;
}

export interface WebhooksTable {
  id: Generated<string>;
  modpackId: string;
  url: string;
  events: WebhookEventType[];
  format: WebhookFormat;
  description: string | null;
  isActive: Generated<boolean>;
  /** Encrypted with the configured key. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: NullableTimestamp;
  failingSince: NullableTimestamp;
  createdAt: CreatedAt;
  updatedAt: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  webhookId: string;
  eventId: string;
  eventType: WebhookEventType;
  body: string;
  attempt: number;
  status: Generated<"pending" | "succeeded" | "failed">;
  responseStatus: number | null;
  error: string | null;
  durationMs: number | null;
  createdAt: CreatedAt;
}

export type RevisionReason =
  | "initial"
  | "mods-added"
  | "mods-removed"
  | "configuration"
  | "import"
  | "restore"
  | "duplicate"
  | "workshop";

export interface ModpackRevisionsTable {
  id: Generated<string>;
  modpackId: string;
  number: number;
  reason: RevisionReason;
  authorId: string | null;
  added: number;
  removed: number;
  moved: number;
  selectionChanged: number;
  /** False while the revision waits for its `modpack.changed` event. */
  announced: Generated<boolean>;
  createdAt: CreatedAt;
}

/**
 * A mod's entry in the revisions `firstNumber` up to, not including, `untilNumber` (null: the
 * newest): the revision's mod and its load-order key (`modpack/revision-state.ts`), under its link's ids.
 */
export interface ModpackRevisionModsTable extends Omit<KeyedMod, "id"> {
  modpackId: string;
  modId: string;
  firstNumber: number;
  untilNumber: number | null;
}

export interface ServerStartsTable {
  id: Generated<string>;
  modpackId: string;
  revision: number;
  version: "41x" | "42x";
  outcome: "started" | "failed" | "incomplete";
  modsLoaded: string[];
  findings: Json<ServerStartFindingRow[]>;
  reportedBy: string | null;
  createdAt: CreatedAt;
}

export interface ServerStartFindingRow {
  code: "mod-not-found" | "workshop-download-failed" | "not-started" | "lua-error";
  severity: "error" | "warning";
  modId: string | null;
  workshopId: string | null;
  platformModId: string | null;
  line: number;
  text: string;
}

export interface PendingInitialRevisionsTable {
  modpackId: string;
}

export interface Database {
  users: UsersTable;
  accounts: AccountsTable;
  sessions: SessionsTable;
  apiTokens: ApiTokensTable;
  modpacks: ModpacksTable;
  modpackMembers: ModpackMembersTable;
  modpackInvitations: ModpackInvitationsTable;
  mods: ModsTable;
  modpackMods: ModpackModsTable;
  notifications: NotificationsTable;
  imports: ImportsTable;
  exports: ExportsTable;
  exportConfigurations: ExportConfigurationsTable;
  webhooks: WebhooksTable;
  webhookDeliveries: WebhookDeliveriesTable;
  modpackRevisions: ModpackRevisionsTable;
  modpackRevisionMods: ModpackRevisionModsTable;
  pendingInitialRevisions: PendingInitialRevisionsTable;
  serverStarts: ServerStartsTable;
}

export type UserRow = Selectable<UsersTable>;
export type ModpackRow = Selectable<ModpacksTable>;
export type ModRow = Selectable<ModsTable>;
export type NewMod = Insertable<ModsTable>;
export type ModpackUpdate = Updateable<ModpacksTable>;
export type NotificationRow = Selectable<NotificationsTable>;
export type ImportRow = Selectable<ImportsTable>;
export type ExportRow = Selectable<ExportsTable>;
