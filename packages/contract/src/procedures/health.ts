import { z } from "zod";
import { resource } from "../ports.js";
import { healthSchema, readinessSchema } from "../schemas/health.js";
import { operation, router } from "../trpc.js";

export const healthPorts = resource("health", {
  readiness: { output: readinessSchema },
});
const { schemas, call } = healthPorts;

export const healthRouter = router({
  check: operation({
    method: "GET",
    path: "/health",
    tags: ["Health"],
    summary: "Liveness",
    description: 'Answers `{ message: "OK" }` while the process is up. It touches nothing else.',
    operationId: "getHealth",
    success: "The process is up.",
    public: true,
    rateLimit: "none",
  })
    .input(z.void())
    .output(healthSchema)
    .query(() => ({ message: "OK" as const })),
  ready: operation({
    method: "GET",
    path: "/health/ready",
    tags: ["Health"],
    summary: "Readiness",
    description:
      "Answers 200 when the database answers a query and the job queue is running; 503 otherwise. Load balancers should route traffic only to ready instances.",
    operationId: "getReadiness",
    success: "The database and the job queue answer.",
    public: true,
    errors: [503],
  })
    .concat(schemas.readiness)
    .query(call("readiness")),
});
