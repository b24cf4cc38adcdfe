import { request } from "node:http";
import { sql } from "kysely";
import { expect, it } from "vitest";
import type { Db } from "../src/db/database.js";
import { startTestService, type TestService } from "./support/service.js";

it("lets a handler whose client already left finish its database work before closing", async () => {
  let outcome: "pending" | "succeeded" | "failed" = "pending";
  let db: Db | undefined;
  let handlerStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    handlerStarted = resolve;
  });
  const service: TestService = await startTestService({
    services: (services) => ({
      ...services,
      health: {
        async readiness() {
          handlerStarted();
          await new Promise((resolve) => setTimeout(resolve, 400));
          try {
            if (!db) throw new Error("the service has not started");
            await sql`select 1`.execute(db);
            outcome = "succeeded";
          } catch {
            outcome = "failed";
          }
          return { status: "ready", database: "ok", jobs: "ok" };
        },
      },
    }),
  });
  db = service.runtime.database.db;
  const address = await service.app.listen({ port: 0, host: "127.0.0.1" });
  const client = request(`${address}/health/ready`);
  client.on("error", () => {});
  client.end();
  await started;
  client.destroy();
  await service.stop();
  expect(outcome).toBe("succeeded");
});
