import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The version of what a read answers, for HTTP validators: the services note the `version` of the
 * first versioned row a read loads (a modpack's when its access is checked, a mod's when it is
 * loaded), and whoever started the read with `recordReadVersion` finds it there once the read is
 * done. The version is read before the rest of the answer, so the answer is never older than it.
 */
export interface ReadVersion {
  value: string | undefined;
}

const current = new AsyncLocalStorage<ReadVersion>();

/** Runs `read`, noting in `record` the version of the first versioned row it loads. */
export function recordReadVersion<T>(record: ReadVersion, read: () => T): T {
  return current.run(record, read);
}

/** Notes a version for the read in progress, if one is being recorded and none was noted yet. */
export function noteReadVersion(value: string): void {
  const record = current.getStore();
  if (record && record.value === undefined) record.value = value;
}

/** The read version of a modpack: its row's `version`, which its members, links and mods move too. */
export const modpackReadVersion = (version: string) => `p${version}`;
/** The read version of a catalogue mod. */
export const modReadVersion = (version: string) => `m${version}`;
