import type { CheckFinding, Services } from "@modpack/contract";
import type { Db } from "../db/database.js";
import { loadEffectiveConfiguration } from "../db/export-configurations.js";
import { checkConfiguration } from "../db/modpack-check.js";
import { latestStartErrors } from "../db/server-starts.js";
import { type WorkGate, workGate } from "../user-limits.js";

export const CHECKS_AT_ONCE = 2;
export const CHECKS_WAITING = 256;

/**
 * The bound on checking modpacks, CPU work on the one JavaScript thread: a process checks two at a
 * time (a check or a server file, which checks the modpack too), queues the rest in arrival order,
 * and past the queue's bound answers 503 with `Retry-After`. One per process, shared by both.
 */
export function checkGate(): WorkGate {
  return workGate({ running: CHECKS_AT_ONCE, waiting: CHECKS_WAITING, what: "modpack checks", retryAfterSeconds: 1 });
}

/** The modpack check: three queries at most, whatever the modpack's size, through `gate`. */
export function checksService(db: Db, gate: WorkGate = checkGate()): Services["checks"] {
  return {
    check(modpack, { version }) {
      return gate.run(async () => {
        const [check, seen] = await Promise.all([
          loadEffectiveConfiguration(db, modpack.id).then((effective) => checkConfiguration(db, effective, version)),
          latestStartErrors(db, modpack.id, version, modpack.modpack.revision),
        ]);
        if (seen.length === 0) return check;
        // What the server itself reported of its last start with this revision: warnings beside the prediction.
        const findings: CheckFinding[] = seen.map((finding) => ({
          code: "seen-at-start",
          severity: "warning",
          message: `The latest start of revision ${modpack.modpack.revision} on ${version} reported: ${finding.text}`,
          ...(finding.modId ? { modId: finding.modId } : {}),
          ...(finding.workshopId ? { workshopId: finding.workshopId } : {}),
          ...(finding.platformModId ? { platformModId: finding.platformModId } : {}),
        }));
        return { ...check, findings: [...check.findings, ...findings] };
      });
    },
  };
}
