import { appRouter, errorAnswer, operations } from "@modpack/contract";
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import type { FastifyInstance } from "fastify";
import { classifyFailure } from "../edge/errors.js";
import { contextOf, logFailure, type ProcedureDependencies } from "./rest.js";

/** The procedures a `/trpc` URL calls: `/trpc/a,b?batch=1` calls `a` and `b`. */
function procedureNames(url: string): string[] {
  const path = url.slice("/trpc/".length).split("?")[0] ?? "";
  try {
    return decodeURIComponent(path).split(",");
  } catch {
    return [path];
  }
}

/**
 * The contract's procedures as native tRPC under `/trpc`, for the typed client. Each call of a
 * batch counts against its operation's rate limit; a failed call carries the same status and body
 * as on REST (`data.httpStatus`, `data.body`), and the longest wait any call asks for is the
 * response's `Retry-After`.
 */
export async function mountTrpc(app: FastifyInstance, deps: ProcedureDependencies): Promise<void> {
  const limitOf = new Map(operations().map(({ name, meta }) => [name, meta.rateLimit ?? "general"]));
  await app.register(async (scope) => {
    scope.addHook("onRequest", (request, reply) =>
      deps.rateLimits.calls(
        request,
        reply,
        procedureNames(request.url).map((name) => limitOf.get(name) ?? "general"),
      ),
    );
    await scope.register(fastifyTRPCPlugin, {
      prefix: "/trpc",
      trpcOptions: {
        router: appRouter,
        async createContext({ req, res }) {
          const caller = await deps.authenticate(req, res).catch((error: unknown) => {
            throw classifyFailure(error) ?? error;
          });
          return contextOf(deps.services, req, caller);
        },
        responseMeta({ errors }) {
          const waits = errors.flatMap((error) => errorAnswer(error).retryAfter ?? []);
          return waits.length > 0 ? { headers: { "retry-after": String(Math.max(...waits)) } } : {};
        },
        onError({ error, req }) {
          logFailure(req, error);
        },
      } satisfies FastifyTRPCPluginOptions<typeof appRouter>["trpcOptions"],
    });
  });
}
