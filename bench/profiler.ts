/**
 * A CPU profile of just the load phase, taken inside a server child through the inspector (so
 * start-up and tsx's compilation stay out of it). The orchestrator sends `{ type: "profile-start" }`
 * and `{ type: "profile-stop", file }`; the child answers `{ type: "profile", file }`.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

let session: Session | undefined;

export async function answerProfileMessage(message: { type?: string; file?: string }): Promise<boolean> {
  if (message?.type === "profile-start") {
    session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    process.send?.({ type: "profile", file: undefined });
    return true;
  }
  if (message?.type === "profile-stop" && session && message.file) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(message.file, JSON.stringify(profile));
    session.disconnect();
    session = undefined;
    process.send?.({ type: "profile", file: message.file });
    return true;
  }
  return false;
}
