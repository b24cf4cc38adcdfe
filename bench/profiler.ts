/**
 * A profile of just the load phase, taken inside a server child through the inspector (so
 * start-up and compilation stay out of it): CPU time, or with `allocations: true` every sampled
 * allocation, including objects already collected (what the garbage collector is paid to clear).
 * The orchestrator sends `{ type: "profile-start", allocations? }` and `{ type: "profile-stop", file }`;
 * the child answers `{ type: "profile", file }`.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

let session: Session | undefined;
let allocating = false;

export async function answerProfileMessage(message: {
  type?: string;
  file?: string;
  allocations?: boolean;
}): Promise<boolean> {
  if (message?.type === "profile-start") {
    session = new Session();
    session.connect();
    allocating = message.allocations === true;
    if (allocating) {
      await session.post("HeapProfiler.enable");
      await session.post("HeapProfiler.startSampling", {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else {
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
    }
    process.send?.({ type: "profile", file: undefined });
    return true;
  }
  if (message?.type === "profile-stop" && session && message.file) {
    const { profile } = allocating
      ? await session.post("HeapProfiler.stopSampling")
      : await session.post("Profiler.stop");
    writeFileSync(message.file, JSON.stringify(profile));
    session.disconnect();
    session = undefined;
    process.send?.({ type: "profile", file: message.file });
    return true;
  }
  return false;
}
