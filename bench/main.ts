/**
 * `pnpm bench` runs the service-against-baseline benchmark; `pnpm bench --scale` the ten-times-size one;
 * `pnpm bench --history` a modpack's history at size.
 * Each run first prints the code-line count (`pnpm lines`), so a run's figures come with the size of
 * the code they measured.
 */
import { countCodeLines, describeCodeLines } from "./code-lines.js";

process.stdout.write(`${describeCodeLines(countCodeLines())}\n\n`);
if (process.argv.includes("--scale")) await import("./scale.js");
else if (process.argv.includes("--history")) await import("./history.js");
else await import("./run.js");
