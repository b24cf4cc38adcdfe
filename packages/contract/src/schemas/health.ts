import { z } from "zod";

export const healthSchema = z.object({ message: z.literal("OK") }).meta({ id: "Health", example: { message: "OK" } });

export const readinessSchema = z
  .object({
    status: z.literal("ready"),
    database: z.literal("ok"),
    jobs: z.literal("ok"),
  })
  .meta({ id: "Readiness", example: { status: "ready", database: "ok", jobs: "ok" } });

export type Health = z.infer<typeof healthSchema>;
export type Readiness = z.infer<typeof readinessSchema>;
