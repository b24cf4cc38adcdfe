import { z } from "zod";
import { idParams } from "../schemas/common.js";
import { sessionSchema } from "../schemas/session.js";
import { createdTokenSchema, createTokenInput, tokenListSchema } from "../schemas/token.js";
import { operation, protectedProcedure, router } from "../trpc.js";

export const authRouter = router({
  session: protectedProcedure
    .meta(
      operation({
        method: "GET",
        path: "/auth/session",
        tags: ["Auth"],
        summary: "The current session and user",
        description:
          "Answers the caller's session (`id`, `userId`, `expiresAt`) and user. Every valid request slides the session's expiry to now + 5 minutes and re-sends the cookie. Called with an API token, `session` describes the token.",
        operationId: "getSession",
      }),
    )
    .input(z.void())
    .output(sessionSchema)
    .query(({ ctx }) => ctx.services.auth.session(ctx.caller)),
  createToken: protectedProcedure
    .meta(
      operation({
        method: "POST",
        path: "/auth/tokens",
        tags: ["Auth"],
        summary: "Create an API token",
        description:
          "Creates a personal API token for scripts and servers. The secret is in this response only; the service keeps just its SHA-256. Tokens expire after `expiresInDays` (default 90).",
        operationId: "createToken",
        successStatus: 201,
      }),
    )
    .input(createTokenInput)
    .output(createdTokenSchema)
    .mutation(({ ctx, input }) => ctx.services.auth.createToken(ctx.caller, input)),
  listTokens: protectedProcedure
    .meta(
      operation({
        method: "GET",
        path: "/auth/tokens",
        tags: ["Auth"],
        summary: "List your API tokens",
        description: "Lists the caller's unexpired API tokens, newest first. Secrets are never returned.",
        operationId: "listTokens",
      }),
    )
    .input(z.void())
    .output(tokenListSchema)
    .query(({ ctx }) => ctx.services.auth.listTokens(ctx.caller)),
  revokeToken: protectedProcedure
    .meta(
      operation({
        method: "DELETE",
        path: "/auth/tokens/{id}",
        tags: ["Auth"],
        summary: "Revoke an API token",
        description:
          "Revokes one of the caller's API tokens at once, on every server instance. Another user's token id answers 404.",
        operationId: "revokeToken",
        successStatus: 204,
        errors: [404],
      }),
    )
    .input(idParams)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.services.auth.revokeToken(ctx.caller, input.id);
    }),
});
