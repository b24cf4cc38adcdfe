import type { ModpackGuard } from "./access.js";
import type { Implementation } from "./ports.js";
import type { adminPorts } from "./procedures/admin.js";
import type { apiTokenPorts, sessionPorts } from "./procedures/auth.js";
import type { checkPorts } from "./procedures/checks.js";
import type { exportPorts } from "./procedures/exports.js";
import type { healthPorts } from "./procedures/health.js";
import type { importPorts } from "./procedures/imports.js";
import type { memberPorts } from "./procedures/members.js";
import type { modpackModPorts } from "./procedures/modpack-mods.js";
import type { modpackPorts } from "./procedures/modpacks.js";
import type { modPorts } from "./procedures/mods.js";
import type { notificationPorts } from "./procedures/notifications.js";
import type { revisionPorts } from "./procedures/revisions.js";
import type { serverStartPorts } from "./procedures/server-starts.js";
import type { webhookPorts } from "./procedures/webhooks.js";

type Resources =
  | typeof healthPorts
  | typeof sessionPorts
  | typeof apiTokenPorts
  | typeof modpackPorts
  | typeof memberPorts
  | typeof modPorts
  | typeof modpackModPorts
  | typeof checkPorts
  | typeof revisionPorts
  | typeof serverStartPorts
  | typeof importPorts
  | typeof exportPorts
  | typeof notificationPorts
  | typeof adminPorts
  | typeof webhookPorts;

/**
 * What the server implements: per resource, one function per port its procedures declare, with the
 * signature the procedure calls it with, plus the modpack rule that guards the procedures on one
 * modpack. Resource rules (owner, member, public) live behind them.
 */
export type Services = {
  [R in Resources as R["name"]]: Implementation<R["ports"]>;
} & { modpacks: ModpackGuard };
