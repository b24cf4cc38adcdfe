/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by package, so a
 * profile of the service under load says where the time goes. CLI: `pnpm --filter @modpack/bench
 * profile:summary <file.cpuprofile> [top]`.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** `fastify`, `@trpc/server`, `service:src/http/app.ts`, `node:internal`, … */
function packageOf(url: string): string {
  if (url === "") return "(native/V8)";
  if (url.startsWith("node:")) return `node:${url.slice(5).split("/")[1] ?? url.slice(5)}`;
  const match = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match?.[1]) return match[1];
  const local = /\/(apps\/server\/src|packages\/[^/]+\/src|bench)\/(.*)$/.exec(url);
  if (local) return `${local[1]}/${local[2]}`;
  return url;
}

export function summarizeProfile(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const total = [...selfUs.values()].reduce((sum, value) => sum + value, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") idle += us;
    const name = `${functionName || "(anonymous)"} ${packageOf(url)}${url ? `:${lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const pkg = functionName.startsWith("(") ? functionName : packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const busy = total - idle;
  // Inclusive: the share of busy samples with the package anywhere on the stack (each counted once).
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)?.callFrame.functionName === "(idle)") continue;
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const url = byId.get(current)?.callFrame.url ?? "";
      if (url === "") continue;
      const pkg = packageOf(url);
      if (seen.has(pkg)) continue;
      seen.add(pkg);
      inclusive.set(pkg, (inclusive.get(pkg) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .filter(([name]) => !name.startsWith("(idle)"))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top);
  const lines = [
    `profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages of busy time)`,
    "self time by package:",
    ...rank(byPackage).map(([name, us]) => `  ${pct(us)}  ${name}`),
    "inclusive time by package (on the stack):",
    ...rank(inclusive).map(([name, us]) => `  ${pct(us)}  ${name}`),
    "self time by function:",
    ...rank(byFunction).map(([name, us]) => `  ${pct(us)}  ${name}`),
  ];
  return lines.join("\n");
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * Summarises a sampling heap profile taken with collected objects included (profiler.ts with
 * `allocations: true`): bytes allocated by function and by package, per request when the number of
 * requests served is given.
 */
export function summarizeAllocations(file: string, top = 25, requests?: number): string {
  const { head } = JSON.parse(readFileSync(file, "utf8")) as { head: HeapNode };
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const name = `${functionName || "(anonymous)"} ${packageOf(url)}${url ? `:${lineNumber + 1}` : ""}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
      const pkg = functionName.startsWith("(") ? functionName : packageOf(url);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.selfSize);
    }
    for (const child of node.children) visit(child);
  };
  visit(head);
  const amount = (bytes: number) =>
    requests
      ? `${(bytes / requests / 1024).toFixed(1).padStart(7)} KB/req`
      : `${(bytes / 1048576).toFixed(1).padStart(7)} MB`;
  const rank = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `allocations ${file}: ${(total / 1048576).toFixed(0)} MB sampled${requests ? ` over ${requests} requests, ${(total / requests / 1024).toFixed(1)} KB per request` : ""}`,
    "allocated by package:",
    ...rank(byPackage).map(([name, bytes]) => `  ${amount(bytes)}  ${name}`),
    "allocated by function:",
    ...rank(byFunction).map(([name, bytes]) => `  ${amount(bytes)}  ${name}`),
  ].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: profile-summary.ts <file.cpuprofile | file.heapprofile> [top]\n");
    process.exit(2);
  }
  const summarize = file.endsWith(".heapprofile") ? summarizeAllocations : summarizeProfile;
  process.stdout.write(`${summarize(file, top ? Number(top) : 25)}\n`);
}
