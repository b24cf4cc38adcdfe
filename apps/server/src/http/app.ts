import type { Services } from "@modpack/contract";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { Config } from "../config.js";
import type { Authenticate, OpenApiPaths, RouteModule } from "../edge/routes.js";
import type { ReadValidators } from "./caching.js";
import { docsRoutes, type ReferencePlugin } from "./docs.js";
import { harden, serverOptions } from "./hardening.js";
import { trackInFlight } from "./in-flight.js";
import { buildOpenApiDocument } from "./openapi.js";
import { mountRest } from "./rest.js";
import { mountTrpc } from "./trpc.js";

export interface AppDependencies {
  config: Config;
  services: Services;
  authenticate: Authenticate;
  /** The validators that answer `If-None-Match` on the versioned reads before they run. */
  readValidators: ReadValidators;
  routes?: RouteModule[];
  /** Scalar's plugin for `/docs`, from `loadReference`; none in production. */
  reference: ReferencePlugin;
  logger: FastifyBaseLogger;
  /** Called when closing starts, before in-flight requests are waited for (to end long-lived streams). */
  onPreClose?: () => Promise<void>;
  /** Called once the app has stopped accepting requests and finished the ones in flight. */
  onClose?: () => Promise<void>;
}

/**
 * Builds the HTTP application: hardening (request ids, CSRF, NUL, JSON bodies, cookies, rate limits,
 * CORS, the error handlers), the contract's procedures as native tRPC under `/trpc` and as REST paths
 * at the root, the plain routes, the index, `/openapi.json` and `/docs`.
 */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config, authenticate } = deps;
  const app = Fastify(serverOptions(deps.logger));
  // Where `authenticate` keeps each request's caller once resolved.
  app.decorateRequest("caller", null);
  const drain = trackInFlight(app);
  const rateLimits = await harden(app, config, authenticate);
  const procedures = { ...deps, rateLimits };
  await mountTrpc(app, procedures);

  const paths: OpenApiPaths = {};
  let document: OpenAPIObject | undefined;
  const openApiDocument = () => (document ??= buildOpenApiDocument({ publicUrl: config.publicUrl, extraPaths: paths }));
  const modules = [...(deps.routes ?? []), docsRoutes(config, openApiDocument, deps.reference)];
  for (const module of modules) {
    await app.register(module.plugin, { authenticate, limit: rateLimits.route });
    Object.assign(paths, module.paths);
  }
  await mountRest(app, procedures);

  app.addHook("preClose", async () => deps.onPreClose?.());
  app.addHook("onClose", async () => {
    await drain();
    await deps.onClose?.();
  });
  return app;
}
