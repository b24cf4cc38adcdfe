import type { Migration } from "kysely/migration";
import * as m0001 from "./0001_initial.js";
import * as m0002 from "./0002_search_indexes.js";
import * as m0004 from "./0004_scale_indexes.js";
import * as m0005 from "./0005_check_findings.js";
import * as m0006 from "./0006_member_invitations.js";
import * as m0007 from "./0007_build_mod_ids.js";
import * as m0008 from "./0008_read_versions.js";
import * as m0009 from "./0009_invitation_expiry.js";
import * as m0010 from "./0010_planner_costs.js";
import * as m0011 from "./0011_link_sort_keys.js";
import * as m0012 from "./0012_search_text.js";
import * as m0013 from "./0013_token_scopes.js";
import * as m0014 from "./0014_webhooks.js";
import * as m0015 from "./0015_modpack_changes.js";
import * as m0016 from "./0016_revisions.js";
import * as m0017 from "./0017_server_starts.js";
import * as m0018 from "./0018_check_read_versions.js";
import * as m0019 from "./0019_planned_rows.js";

/**
 * A migration runs in a transaction of its own unless it exports `transactional = false`: one that
 * builds indexes `concurrently` or fills a large table in batches, so that it never holds a lock
 * for long; it must then be able to run again from the start after an interruption.
 */
export type NumberedMigration = Migration & { transactional?: boolean };

/** Every migration, by its numbered file name; the migrator applies them in name order. */
export const migrations: Record<string, NumberedMigration> = {
  "0001_initial": m0001,
  "0002_search_indexes": m0002,
  "0004_scale_indexes": m0004,
  "0005_check_findings": m0005,
  "0006_member_invitations": m0006,
  "0007_build_mod_ids": m0007,
  "0008_read_versions": m0008,
  "0009_invitation_expiry": m0009,
  "0010_planner_costs": m0010,
  "0011_link_sort_keys": m0011,
  "0012_search_text": m0012,
  "0013_token_scopes": m0013,
  "0014_webhooks": m0014,
  "0015_modpack_changes": m0015,
  "0016_revisions": m0016,
  "0017_server_starts": m0017,
  "0018_check_read_versions": m0018,
  "0019_planned_rows": m0019,
};
