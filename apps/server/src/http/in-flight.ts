import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyContextConfig {
    /** A stream that lives until the client leaves or the server closes; shutdown does not wait for it. */
    longLived?: boolean;
  }
}

/** How long closing waits for handlers still running (their clients may have left already). */
const DRAIN_TIMEOUT_MS = 15_000;

/**
 * Tracks the handlers in flight, until their reply is sent. A client that leaves early does not
 * stop its handler, and Fastify stops waiting for it: closing waits on the answered `drain` before
 * the database goes away (at most 15 s). Long-lived streams are not counted.
 */
export function trackInFlight(app: FastifyInstance): () => Promise<void> {
  const inFlight = new Set<FastifyRequest>();
  let drained: (() => void) | undefined;
  const settle = (request: FastifyRequest) => {
    inFlight.delete(request);
    if (inFlight.size === 0) drained?.();
  };
  app.addHook("onRequest", (request, _reply, done) => {
    if (!request.routeOptions.config.longLived) inFlight.add(request);
    done();
  });
  app.addHook("onSend", (request, _reply, payload, done) => {
    settle(request);
    done(null, payload);
  });
  app.addHook("onResponse", (request, _reply, done) => {
    settle(request);
    done();
  });
  return async () => {
    if (inFlight.size === 0) return;
    const settled = new Promise<false>((resolve) => {
      drained = () => resolve(false);
    });
    // An unreferenced timer: it does not keep the process alive once everything else has closed.
    if (await Promise.race([settled, sleep(DRAIN_TIMEOUT_MS, true, { ref: false })])) {
      app.log.warn({ pending: inFlight.size }, "closing with handlers still running");
    }
  };
}
