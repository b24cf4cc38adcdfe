/**
 * The Steam Web API stand-in of `pnpm dev`, as its own process: serves the demo catalogue's workshop
 * items and collection on STEAM_STAND_IN_PORT (default 3001; 0 takes any free port) of 127.0.0.1.
 * Its first line on stdout names its URL. Stops on SIGINT or SIGTERM, and when the process that
 * started it through an IPC channel ends.
 */
import { demoWorkshop } from "./demo-workshop.js";
import { startSteamStandIn } from "./steam-api.js";

const DEFAULT_PORT = 3001;

const portText = process.env.STEAM_STAND_IN_PORT ?? String(DEFAULT_PORT);
const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65_535) {
  process.stderr.write(`Invalid STEAM_STAND_IN_PORT=${JSON.stringify(portText)}: use a port number\n`);
  process.exit(1);
}

const { items, collections } = demoWorkshop();
let standIn: Awaited<ReturnType<typeof startSteamStandIn>>;
try {
  standIn = await startSteamStandIn({ port, items, collections });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
  process.stderr.write(
    `Port ${port} on 127.0.0.1 is already in use: stop that process or set STEAM_STAND_IN_PORT for the Steam Web API stand-in\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `Steam Web API stand-in listening on ${standIn.url} (${items.length - collections.length} items, ${collections.length} collection${collections.length === 1 ? "" : "s"})\n`,
);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  standIn.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Started by `pnpm dev` (with an IPC channel): it ends with the process that started it.
if (process.send) process.on("disconnect", stop);
