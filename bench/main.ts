/** `pnpm bench` runs the service-against-baseline benchmark; `pnpm bench --scale` the ten-times-size one. */
if (process.argv.includes("--scale")) await import("./scale.js");
else await import("./run.js");
