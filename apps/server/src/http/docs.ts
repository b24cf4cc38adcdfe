import { z } from "zod";
import type { Config } from "../config.js";
import { defineRoute, type RouteModule, routeModule } from "../edge/routes.js";

const DOCS_PREFIX = "/docs";

/**
 * Scalar's Fastify plugin, outside production; production neither serves the reference nor loads its
 * module. That module embeds the reference's whole front-end as one string literal, and parsing it
 * takes scratch memory several times the literal's size. The runtime imports it before it opens the
 * database, so the allocations that follow reuse that memory once it is freed; imported after them,
 * the freed memory would stay in the process unused.
 */
export async function loadReference(config: Config) {
  return config.isProduction ? undefined : (await import("@scalar/fastify-api-reference")).default;
}

export type ReferencePlugin = Awaited<ReturnType<typeof loadReference>>;

/**
 * The service's index, its OpenAPI document and, outside production, the interactive reference
 * (`/docs`). `document` answers the whole OpenAPI document; `plugin` is Scalar's, from `loadReference`.
 */
export function docsRoutes(config: Config, document: () => unknown, plugin: ReferencePlugin): RouteModule {
  const index = defineRoute({
    method: "GET",
    path: "/",
    tags: ["Documentation"],
    operationId: "getIndex",
    summary: "Service index",
    description:
      "Where a browser lands after signing in. Outside production it redirects to the interactive reference at `/docs/`; in production it answers the service's name and where its OpenAPI document is. Public.",
    permission: "public",
    responses: {
      200: {
        description: "In production: the index",
        content: {
          "application/json": { schema: z.object({ name: z.string(), openapi: z.string(), health: z.string() }) },
        },
      },
      302: { description: "Outside production: to `/docs/`" },
    },
    // Where a browser lands after signing in: the docs where they are served, else a short index.
    handler: async ({ reply }) =>
      config.isProduction
        ? { name: "Modpack Collection Service", openapi: "/openapi.json", health: "/health" }
        : reply.redirect(`${DOCS_PREFIX}/`),
  });

  const openApi = defineRoute({
    method: "GET",
    path: "/openapi.json",
    tags: ["Documentation"],
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description: "The OpenAPI 3.1 document of every route of the service. Public.",
    permission: "public",
    responses: {
      200: { description: "The document", content: { "application/json": { schema: z.looseObject({}) } } },
    },
    handler: async () => document(),
  });

  const reference = defineRoute({
    method: "GET",
    path: DOCS_PREFIX,
    tags: ["Documentation"],
    operationId: "getDocs",
    summary: "Interactive API reference",
    description:
      "The Scalar reference rendered from `/openapi.json`, where requests can be sent with the session cookie. Served only when `NODE_ENV` is not `production` (404 there). Public.",
    permission: "public",
    responses: {
      200: {
        description: "The interactive reference, an HTML page",
        content: {
          "text/html": {
            schema: z.string(),
            example: "<!doctype html><html><head><title>Modpack Collection Service API</title></head>…</html>",
          },
        },
      },
      301: { description: "`/docs` without the trailing slash: to `/docs/`, where the reference's pages are served." },
    },
    errors: { 404: "Disabled in production" },
    // Only its OpenAPI entry is used: Scalar's plugin registers the routes that serve these pages.
    handler: async ({ reply }) => reply.callNotFound(),
  });

  return routeModule(
    [index, openApi],
    async (app) => {
      if (!plugin) return;
      await app.register(plugin, {
        routePrefix: DOCS_PREFIX,
        configuration: {
          url: "/openapi.json",
          title: "Modpack Collection Service",
          pageTitle: "Modpack Collection Service API",
          withDefaultFonts: false,
          hideClientButton: false,
          persistAuth: true,
          authentication: { preferredSecurityScheme: "cookieAuth" },
          // Only this API's reference: no AI chat, no MCP, no deploy/share tools, nothing sent elsewhere.
          agent: { disabled: true },
          mcp: { disabled: true },
          showDeveloperTools: "never",
          telemetry: false,
        },
      });
    },
    [index, openApi, reference],
  );
}
