import { z } from "zod";
import { resource } from "../ports.js";
import { idParams } from "../schemas/common.js";
import { sessionSchema } from "../schemas/session.js";
import { createdTokenSchema, createTokenInput, tokenListInput, tokenListSchema } from "../schemas/token.js";
import { operation, router } from "../trpc.js";

/** The signed-in caller's own session and user. */
export const sessionPorts = resource("session", {
  current: { caller: true, output: sessionSchema },
});
/** The caller's personal API tokens. */
export const apiTokenPorts = resource("apiTokens", {
  create: { caller: true, input: createTokenInput, output: createdTokenSchema },
  list: { caller: true, input: tokenListInput, output: tokenListSchema },
  revoke: { caller: true, input: idParams, output: z.void() },
});
const apiTokens = apiTokenPorts.of;

export const authRouter = router({
  session: operation({
    method: "GET",
    path: "/auth/session",
    tags: ["Sign-in"],
    summary: "The current session and user",
    description:
      "Answers the caller's session (`id`, `userId`, `expiresAt`) and user. Every valid request slides the session's expiry to now + 5 minutes and re-sends the cookie. Called with an API token, `session` describes the token.",
    operationId: "getSession",
    success: "The current session and the signed-in user.",
  })
    .concat(sessionPorts.schemas.current)
    .query(sessionPorts.call("current")),
  createToken: operation({
    method: "POST",
    path: "/auth/tokens",
    tags: ["Sign-in"],
    summary: "Create an API token",
    description:
      'Creates a personal API token for scripts and servers. The secret is in this response only; the service keeps just its SHA-256. Tokens expire after `expiresInDays` (default 90). A user holds at most `API_TOKENS_PER_USER` (default 50) unexpired tokens: one more answers 409 until one is revoked or expires.\n\n`scopes: ["read"]` makes a read-only token: it may call every operation that changes nothing (reads, `GET /modpacks/{id}/server-file` and its patch, the notification stream) and gets 403 `Do not have permission` from the rest. `modpackIds` limits it to those modpacks (each must be one you may read, else 422). A start script\'s token is both: `{ "name": "server start", "scopes": ["read"], "modpackIds": ["<id>"] }`.',
    operationId: "createToken",
    wholeAccount: true,
    success: "The new token, with its secret (shown only here).",
    successStatus: 201,
    errors: [409, 422],
  })
    .concat(apiTokenPorts.schemas.create)
    .mutation(({ ctx, input }) => apiTokens(ctx).create(ctx.caller, input)),
  listTokens: operation({
    method: "GET",
    path: "/auth/tokens",
    tags: ["Sign-in"],
    summary: "List your API tokens",
    description:
      "Lists the caller's unexpired API tokens, newest first, a page at a time (`page`, `limit`). Secrets are never returned.",
    operationId: "listTokens",
    wholeAccount: true,
    scope: "write",
    success: "Your API tokens, without their secrets.",
  })
    .concat(apiTokenPorts.schemas.list)
    .query(apiTokenPorts.call("list")),
  revokeToken: operation({
    method: "DELETE",
    path: "/auth/tokens/{id}",
    tags: ["Sign-in"],
    summary: "Revoke an API token",
    description:
      "Revokes one of the caller's API tokens at once, on every server instance. Another user's token id answers 404.",
    operationId: "revokeToken",
    wholeAccount: true,
    success: "Revoked; the token no longer authenticates.",
    successStatus: 204,
    errors: [404],
  })
    .concat(apiTokenPorts.schemas.revoke)
    .mutation(({ ctx, input }) => apiTokens(ctx).revoke(ctx.caller, input)),
});
