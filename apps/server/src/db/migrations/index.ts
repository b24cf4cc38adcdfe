import type { Migration } from "kysely/migration";
import * as m0001 from "./0001_initial.js";
import * as m0002 from "./0002_search_indexes.js";

/** Every migration, by its numbered file name; the migrator applies them in name order. */
export const migrations: Record<string, Migration> = {
  "0001_initial": m0001,
  "0002_search_indexes": m0002,
};
