/** The names of the job queues, shared by the code that sends and the code that works them. */
export const IMPORT_QUEUE = "modpack.import";
export const EXPORT_QUEUE = "modpack.export";
export const MOD_UPDATE_QUEUE = "mods.update";
