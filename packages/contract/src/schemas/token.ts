import { z } from "zod";
import { tokenScopes } from "../permissions.js";
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
    scopes: z
      .array(z.enum(tokenScopes))
      .max(tokenScopes.length)
      .refine(
        (scopes) =>
          scopes.includes("read") &&
          new Set(scopes).size === scopes.length &&
          !(scopes.includes("write") && scopes.includes("report")),
        { message: 'Must be ["read"], ["read", "report"] or ["read", "write"]' },
      )
      .default(["read", "write"])
      .meta({
        description:
          '`["read"]`: a read-only token, refused (403 `Do not have permission`) by every operation that changes something; `["read", "report"]`: a server\'s token, which may also post start reports (`POST /modpacks/{id}/server-starts`) and change nothing else; `["read", "write"]` (default): everything the user may do, reports included',
      }),
    modpackIds: z
      .array(uuid)
      .min(1)
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, { message: "Modpack ids must not repeat" })
      .optional()
      .meta({
        description:
          "Limits the token to these modpacks (1-100, each one you may read; 422 otherwise): any other modpack answers as it would to a stranger, and `GET /modpacks/my` lists only these. Public lists and the catalogue stay readable. Omitted: no limit.",
      }),
  })
  .meta({ id: "CreateTokenInput" });

const tokenExample = {
  id: exampleId,
  name: "CI deploy script",
  createdAt: exampleTime,
  expiresAt: "2027-02-19T12:00:00.000Z",
  lastUsedAt: null,
  scopes: ["read"],
  modpackIds: ["0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8e"],
};

export const apiTokenSchema = z
  .object({
    id: uuid,
    name: z.string().max(100),
    createdAt: timestamp,
    expiresAt: timestamp,
    lastUsedAt: timestamp.nullable(),
    scopes: z
      .array(z.enum(tokenScopes))
      .max(tokenScopes.length)
      .meta({ description: "What the token may do: `read`, with `write` or `report` unless read-only" }),
    modpackIds: z
      .array(uuid)
      .max(100)
      .nullable()
      .meta({ description: "The modpacks the token is limited to; null: no limit" }),
  })
  .meta({ id: "ApiToken", example: tokenExample });

export const createdTokenSchema = apiTokenSchema
  .extend({
    token: z.string().max(100).meta({
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
