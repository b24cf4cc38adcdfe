import { z } from "zod";
import { roles } from "../permissions.js";
import { timestamp, uuid } from "./common.js";

export const userSchema = z
  .object({
    id: uuid,
    name: z.string(),
    email: z.string(),
    role: z.enum(roles),
    image: z.string(),
  })
  .meta({
    id: "User",
    example: {
      id: "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d",
      name: "Kate",
      email: "kate@example.com",
      role: "user",
      image: "https://cdn.example.com/avatars/kate.png",
    },
  });

export const sessionSchema = z
  .object({
    session: z.object({
      id: z.string().meta({ description: "The session id, or the API token id for Bearer API-token callers" }),
      userId: uuid,
      expiresAt: timestamp,
    }),
    user: userSchema,
  })
  .meta({ id: "Session" });

export type User = z.infer<typeof userSchema>;
export type SessionInfo = z.infer<typeof sessionSchema>;
