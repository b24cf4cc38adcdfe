/**
 * `pnpm lines`: the size of the service's own code, counted the same way on any checkout.
 *
 * A code line is a non-blank line that does not start, after its indentation, with `//`, `/*` or `*`.
 * Counted: the `.ts` files under `apps/server/src` and each package's `src`, test files (`*.test.ts`)
 * left out. The count is printed per folder (each `src` and its direct sub-folders) and in total, so
 * two checkouts can be compared folder by folder. `pnpm bench` prints it too, beside its figures.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface FolderCount {
  /** The folder, relative to the repository root, with `/` separators. */
  folder: string;
  files: number;
  lines: number;
}

export interface SourceCount {
  /** The source root (`apps/server/src`, `packages/contract/src`, …) and its total. */
  root: FolderCount;
  /** Its own files (`<root>/*.ts`), then each direct sub-folder with everything below it. */
  folders: FolderCount[];
}

/** Non-blank lines that are not comment lines, by the rule above. */
export function codeLinesOf(text: string): number {
  let count = 0;
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//") || trimmed.startsWith("/*") || trimmed.startsWith("*")) continue;
    count++;
  }
  return count;
}

function isCounted(name: string): boolean {
  return name.endsWith(".ts") && !name.endsWith(".test.ts");
}

/** The counted files under a directory, recursively, in name order. */
function filesUnder(directory: string): string[] {
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(full);
    return entry.isFile() && isCounted(entry.name) ? [full] : [];
  });
}

function countFiles(folder: string, files: string[]): FolderCount {
  const lines = files.reduce((sum, file) => sum + codeLinesOf(readFileSync(file, "utf8")), 0);
  return { folder: path.relative(repositoryRoot, folder).split(path.sep).join("/"), files: files.length, lines };
}

/** The source roots counted: the server's and every package's `src`. */
export function sourceRoots(root = repositoryRoot): string[] {
  const packages = readdirSync(path.join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(root, "packages", entry.name, "src"))
    .filter((source) => existsSync(source))
    .sort();
  return [path.join(root, "apps", "server", "src"), ...packages];
}

export function countCodeLines(root = repositoryRoot): SourceCount[] {
  return sourceRoots(root).map((source) => {
    const entries = readdirSync(source, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    const ownFiles = entries
      .filter((entry) => entry.isFile() && isCounted(entry.name))
      .map((entry) => path.join(source, entry.name));
    const own = countFiles(source, ownFiles);
    const folders = [{ ...own, folder: `${own.folder}/*.ts` }];
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const folder = path.join(source, entry.name);
      folders.push(countFiles(folder, filesUnder(folder)));
    }
    return { root: countFiles(source, filesUnder(source)), folders: folders.filter((folder) => folder.files > 0) };
  });
}

/** The count as a plain-text table: each source root, its folders indented, then the total. */
export function describeCodeLines(counts: SourceCount[]): string {
  const number = (value: number) => value.toLocaleString("en-US");
  const rows: [string, string, string][] = [["folder", "files", "code lines"]];
  for (const { root, folders } of counts) {
    rows.push([root.folder, number(root.files), number(root.lines)]);
    for (const folder of folders) {
      const name = folder.folder.slice(root.folder.length + 1);
      rows.push([`  ${name.endsWith(".ts") ? name : `${name}/`}`, number(folder.files), number(folder.lines)]);
    }
  }
  const files = counts.reduce((sum, { root }) => sum + root.files, 0);
  const lines = counts.reduce((sum, { root }) => sum + root.lines, 0);
  rows.push(["total", number(files), number(lines)]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return [
    "Code lines: non-blank lines not starting with //, /* or *, in .ts files under apps/server/src and packages/*/src, *.test.ts excluded",
    ...rows.map(([folder, fileCount, lineCount]) =>
      [folder.padEnd(widths[0]!), fileCount.padStart(widths[1]!), lineCount.padStart(widths[2]!)].join("  "),
    ),
  ].join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${describeCodeLines(countCodeLines())}\n`);
}
