import { z } from "zod";
import { roles } from "../permissions.js";
import { exampleId, timestamp, uuid } from "./common.js";

export const userExample = {
  id: exampleId,
  name: "Kate",
  email: "kate@example.com",
  role: "user",
  image: "https://cdn.example.com/avatars/kate.png",
};

export const userSchema = z
  .object({
    id: uuid,
    name: z.string(),
    email: z.string(),
    role: z.enum(roles),
    image: z.string(),
  })
  .meta({ id: "User", example: userExample });

export const sessionSchema = z
  .object({
    session: z.object({
      id: z.string().max(100).meta({ description: "The session id, or the API token id for Bearer API-token callers" }),
      userId: uuid,
      expiresAt: timestamp,
    }),
    user: userSchema,
  })
  .meta({
    id: "Session",
    example: {
      session: { id: "k3v9x2m7q4p8w1n6", userId: exampleId, expiresAt: "2026-11-21T12:05:00.000Z" },
      user: userExample,
    },
  });

export type User = z.infer<typeof userSchema>;
export type SessionInfo = z.infer<typeof sessionSchema>;
