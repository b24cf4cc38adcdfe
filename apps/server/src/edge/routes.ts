import type { Caller } from "@modpack/contract";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { ZodOpenApiPathsObject } from "zod-openapi";

/** The name of the session cookie, set by sign-in and read by every request. */
export const SESSION_COOKIE = "svcauth.session_token";

/** Entries of the OpenAPI document's `paths`, as plain routes declare theirs. */
export type OpenApiPaths = ZodOpenApiPathsObject;

/** Resolves the caller of a request from its credentials; may refresh the session cookie on the reply. */
export type Authenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<Caller | null>;

/** Plain Fastify routes (sign-in, redirects, downloads, streams) with their OpenAPI paths. */
export interface RouteModule {
  plugin: FastifyPluginAsync;
  paths: OpenApiPaths;
}
