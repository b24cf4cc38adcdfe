import type { AdminStats, AdminUser, AdminUserListInput } from "./schemas/admin.js";
import type { ModpackCheck } from "./schemas/check.js";
import type { MessageBody } from "./schemas/common.js";
import type {
  ExportConfiguration,
  ExportRequested,
  ExportStatus,
  GameVersion,
  SaveExportConfigurationInput,
} from "./schemas/export.js";
import type { Readiness } from "./schemas/health.js";
import type { ImportStarted, ImportStatus } from "./schemas/import.js";
import type { AddMemberInput, Invitation, Member, UpdateMemberInput } from "./schemas/member.js";
import type { Mod, ModListInput, ModpackMod, ModpackModLink, ModpackModListInput, TagList } from "./schemas/mod.js";
import type {
  CreateModpackInput,
  DuplicateModpackInput,
  Modpack,
  ModpackSummary,
  MyModpackListInput,
  PublicModpackListInput,
  UpdateModpackInput,
} from "./schemas/modpack.js";
import type { Notification, NotificationListInput } from "./schemas/notification.js";
import type { Paged } from "./schemas/pagination.js";
import type { SessionInfo } from "./schemas/session.js";
import type { ApiToken, CreatedToken, CreateTokenInput, TokenListInput } from "./schemas/token.js";
import type { Caller, ModpackAccess, ModpackNeed } from "./trpc.js";

/**
 * What the server implements: one port per resource. Procedures call these with the caller
 * and their checked input; resource rules (owner, member, public) live behind them.
 */
export interface Services {
  health: {
    readiness(): Promise<Readiness>;
  };
  auth: {
    session(caller: Caller): Promise<SessionInfo>;
    createToken(caller: Caller, input: CreateTokenInput): Promise<CreatedToken>;
    listTokens(caller: Caller, input: TokenListInput): Promise<Paged<ApiToken>>;
    revokeToken(caller: Caller, id: string): Promise<void>;
  };
  modpacks: {
    /** Loads a modpack and applies a resource rule: 404 when it is not there for the caller, 403 when refused. */
    authorize(caller: Caller | null, id: string, need: ModpackNeed): Promise<ModpackAccess>;
    listPublic(input: PublicModpackListInput): Promise<Paged<ModpackSummary>>;
    listMine(caller: Caller, input: MyModpackListInput): Promise<Paged<ModpackSummary>>;
    create(caller: Caller, input: CreateModpackInput): Promise<Modpack>;
    get(modpack: ModpackAccess): Promise<Modpack>;
    update(caller: Caller, modpack: ModpackAccess, input: UpdateModpackInput): Promise<Modpack>;
    archive(caller: Caller, modpack: ModpackAccess): Promise<MessageBody>;
    restore(caller: Caller, modpack: ModpackAccess): Promise<Modpack>;
    duplicate(caller: Caller, modpack: ModpackAccess, input: DuplicateModpackInput): Promise<Modpack>;
  };
  members: {
    list(modpack: ModpackAccess): Promise<{ members: Member[] }>;
    /** By user id: a membership; by email: an invitation, the same answer whether or not the email has an account. */
    add(caller: Caller, modpack: ModpackAccess, input: AddMemberInput): Promise<Member | Invitation>;
    update(caller: Caller, modpack: ModpackAccess, input: UpdateMemberInput): Promise<Member>;
    remove(caller: Caller, modpack: ModpackAccess, userId: string): Promise<MessageBody>;
    listInvitations(modpack: ModpackAccess): Promise<{ invitations: Invitation[] }>;
    withdrawInvitation(modpack: ModpackAccess, email: string): Promise<MessageBody>;
  };
  mods: {
    list(caller: Caller | null, input: ModListInput): Promise<Paged<Mod>>;
    tags(): Promise<TagList>;
    get(id: string): Promise<Mod>;
    create(caller: Caller, reference: string): Promise<Mod & { created: boolean }>;
    refresh(caller: Caller, id: string): Promise<Mod>;
    updateAll(caller: Caller): Promise<{ message: string; jobId: string | null }>;
  };
  modpackMods: {
    list(modpack: ModpackAccess, input: ModpackModListInput): Promise<Paged<ModpackMod>>;
    add(caller: Caller, modpack: ModpackAccess, reference: string): Promise<ModpackModLink>;
    /** 409 when other active mods of the modpack require it, unless `force`. */
    remove(caller: Caller, modpack: ModpackAccess, modId: string, options?: { force?: boolean }): Promise<MessageBody>;
  };
  checks: {
    /** Whether the modpack will load on the given game version, and a load order that satisfies requirements. */
    check(modpack: ModpackAccess, version: GameVersion): Promise<ModpackCheck>;
  };
  imports: {
    start(caller: Caller, modpack: ModpackAccess, platformUrl: string): Promise<ImportStarted>;
    status(modpack: ModpackAccess): Promise<ImportStatus>;
  };
  exports: {
    getConfiguration(modpack: ModpackAccess): Promise<ExportConfiguration>;
    saveConfiguration(
      caller: Caller,
      modpack: ModpackAccess,
      input: SaveExportConfigurationInput,
    ): Promise<ExportConfiguration>;
    request(caller: Caller, modpack: ModpackAccess, version: GameVersion): Promise<ExportRequested>;
    /** The requester, or anyone who may read the modpack, may see an export. */
    get(caller: Caller, exportId: string): Promise<ExportStatus>;
  };
  notifications: {
    list(caller: Caller, input: NotificationListInput): Promise<{ notifications: Notification[]; unreadCount: number }>;
    markRead(caller: Caller, id: string): Promise<Notification>;
    markAllRead(caller: Caller): Promise<{ updated: number }>;
    /** The caller's new notifications as they are created, until `signal` aborts. */
    stream(caller: Caller, signal: AbortSignal): AsyncIterable<Notification>;
  };
  admin: {
    listUsers(input: AdminUserListInput): Promise<Paged<AdminUser>>;
    updateUser(caller: Caller, input: { id: string; role: "user" | "admin" }): Promise<AdminUser>;
    verifyModpack(caller: Caller, input: { id: string; isVerified: boolean }): Promise<Modpack>;
    stats(): Promise<AdminStats>;
  };
}
