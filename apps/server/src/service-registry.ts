import type { Services } from "@modpack/contract";
import { issueApiToken } from "./auth/secrets.js";
import type { Config } from "./config.js";
import type { Db } from "./db/database.js";
import type { WebhookSettings } from "./db/webhook-deliveries.js";
import { downloadUrls } from "./http/downloads.js";
import type { Jobs } from "./jobs/boss.js";
import { adminService } from "./services/admin.js";
import { apiTokensService } from "./services/api-tokens.js";
import { exportsService } from "./services/exports.js";
import { healthService } from "./services/health.js";
import { importsService } from "./services/imports.js";
import { membersService } from "./services/members.js";
import { checkGate, checksService } from "./services/modpack-check.js";
import { modpackModsService } from "./services/modpack-mods.js";
import { modpacksService } from "./services/modpacks.js";
import { modsService } from "./services/mods.js";
import { type NotificationHub, notificationsService } from "./services/notifications.js";
import type { RevocationPublisher } from "./services/ports.js";
import { revisionsService } from "./services/revisions.js";
import { serverStartsService } from "./services/server-starts.js";
import { sessionService } from "./services/users.js";
import { webhooksService } from "./services/webhooks.js";
import type { WorkshopClient } from "./workshop/client.js";

/** What the services are built from: the configuration and the process's shared parts. */
export interface ServiceParts {
  config: Config;
  db: Db;
  jobs: Jobs;
  workshop: WorkshopClient;
  hub: NotificationHub;
  revocations: RevocationPublisher;
  webhookSettings: WebhookSettings;
  clock?: (() => number) | undefined;
}

/**
 * Every service of the contract, built once per process, with the modpacks service and the check's
 * work gate that the plain routes share with them.
 */
export function buildServices({ config, db, jobs, workshop, hub, revocations, webhookSettings, clock }: ServiceParts) {
  const modpacks = modpacksService(db);
  // Checks and server files both check modpacks: one bound on that work per process.
  const checks = checkGate();
  const services: Services = {
    health: healthService(db, jobs),
    session: sessionService(db),
    apiTokens: apiTokensService({
      db,
      issue: issueApiToken,
      revocations,
      maxPerUser: config.limits.apiTokensPerUser,
      now: clock,
    }),
    modpacks,
    members: membersService(db, { invitationExpiryDays: config.limits.invitationExpiryDays }),
    notifications: notificationsService(db, hub),
    admin: adminService(db, jobs, revocations),
    mods: modsService({ db, workshop, jobs, maxRunningRefreshesPerUser: config.perUserLimits.refreshes }),
    modpackMods: modpackModsService({
      db,
      workshop,
      jobs,
      changedWindowSeconds: config.webhooks.changedWindowSeconds,
    }),
    checks: checksService(db, checks),
    revisions: revisionsService({ db, jobs, changedWindowSeconds: config.webhooks.changedWindowSeconds }),
    serverStarts: serverStartsService(db),
    imports: importsService({ db, jobs, maxPendingPerUser: config.perUserLimits.imports }),
    exports: exportsService({
      db,
      jobs,
      modpacks,
      downloadUrl: downloadUrls(config.publicUrl),
      maxPendingPerUser: config.perUserLimits.exports,
      changedWindowSeconds: config.webhooks.changedWindowSeconds,
    }),
    webhooks: webhooksService({ db, jobs, settings: webhookSettings }),
  };
  return { services, modpacks, checks };
}
