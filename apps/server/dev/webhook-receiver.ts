/**
 * A webhook receiver on loopback: it records every delivery it gets and answers what it is told
 * per path (200 by default). `pnpm dev` runs one and prints what arrives; tests make it fail,
 * stall or go away.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers on a path: a status with headers and body, or `stall` (never answers). */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | "stall";

export interface WebhookReceiver {
  /** The receiver's URL for a path (each webhook of a test gets its own path). */
  url(path: string): string;
  /** The answers to give on a path, in turn; the last one repeats. */
  answer(path: string, ...answers: ReceiverAnswer[]): void;
  /** What arrived on a path (every path when none is given), oldest first. */
  received(path?: string): ReceivedDelivery[];
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  options: { port?: number; onDelivery?: (delivery: ReceivedDelivery) => void } = {},
): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const answers = new Map<string, ReceiverAnswer[]>();
  const stalled = new Set<ServerResponse>();
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://receiver").pathname;
      const delivery = { path, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") };
      deliveries.push(delivery);
      options.onDelivery?.(delivery);
      const queue = answers.get(path) ?? [];
      const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? { status: 200 };
      if (answer === "stall") {
        stalled.add(response);
        return;
      }
      response.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      response.end(answer.body ?? "ok");
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path.startsWith("/") ? path : `/${path}`}`,
    answer(path, ...given) {
      answers.set(path.startsWith("/") ? path : `/${path}`, given);
    },
    received: (path) => deliveries.filter((delivery) => path === undefined || delivery.path === path),
    connections: () => connections,
    close() {
      for (const response of stalled) response.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
