import { z } from "zod";
import { exampleId, exampleTime, timestamp, uuid } from "./common.js";
import { limitParam, paged, pageParam } from "./pagination.js";

export const createTokenInput = z
  .object({
    name: z.string().trim().min(1).max(100).meta({ example: "CI deploy script" }),
    expiresInDays: z
      .number()
      .int()
      .min(1)
      .max(365)
      .default(90)
      .meta({ description: "Lifetime in days (1-365); 90 when omitted" }),
  })
  .meta({ id: "CreateTokenInput" });

const tokenExample = {
  id: exampleId,
  name: "CI deploy script",
  createdAt: exampleTime,
  expiresAt: "2027-02-19T12:00:00.000Z",
  lastUsedAt: null,
};

export const apiTokenSchema = z
  .object({
    id: uuid,
    name: z.string(),
    createdAt: timestamp,
    expiresAt: timestamp,
    lastUsedAt: timestamp.nullable(),
  })
  .meta({ id: "ApiToken", example: tokenExample });

export const createdTokenSchema = apiTokenSchema
  .extend({
    token: z.string().meta({
      description: "The secret, shown only in this response. Send it as `Authorization: Bearer <token>`.",
      example: "mcs_2g7kq4v5n6x3b8c9d0f1h2j3k4m5p6q7r8s9t0",
    }),
  })
  .meta({
    id: "CreatedToken",
    example: { ...tokenExample, token: "mcs_2g7kq4v5n6x3b8c9d0f1h2j3k4m5p6q7r8s9t0" },
  });

export const tokenListInput = z.object({ page: pageParam, limit: limitParam(20) });

export const tokenListSchema = paged(apiTokenSchema).meta({ id: "TokenList" });

export type ApiToken = z.infer<typeof apiTokenSchema>;
export type CreatedToken = z.infer<typeof createdTokenSchema>;
