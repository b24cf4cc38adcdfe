import type { FastifyBaseLogger } from "fastify";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/runtime.js";

export interface CapturedLog {
  /** The service's logger (the production configuration, at trace level), writing into memory. */
  logger: FastifyBaseLogger;
  /** Everything written so far. */
  text(): string;
  lines(): Array<Record<string, unknown>>;
}

export function captureLog(): CapturedLog {
  const chunks: string[] = [];
  const logger = createLogger(loadConfig({ LOG_LEVEL: "trace" }), {
    write(chunk: string) {
      chunks.push(chunk);
    },
  });
  return {
    logger,
    text: () => chunks.join(""),
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
