import type { FastifyApiReferenceOptions } from "@scalar/fastify-api-reference";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";

/** Hop-by-hop and length headers the outer reply sets itself. */
const notForwarded = new Set(["content-length", "transfer-encoding", "connection", "keep-alive"]);

/**
 * Scalar's docs, loaded on the first request under their prefix rather than at start-up: its
 * module embeds the whole docs front-end, whose loading costs memory and start-up CPU that a
 * server nobody browses never needs. The pages stay the plugin's own: a
 * private Fastify instance serves them and the answered handler forwards each request to it.
 */
export function lazyScalar(
  options: FastifyApiReferenceOptions,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  let docs: Promise<FastifyInstance> | undefined;
  const load = async () => {
    const { default: scalar } = await import("@scalar/fastify-api-reference");
    const inner = Fastify({ logger: false });
    await inner.register(scalar, options);
    await inner.ready();
    return inner;
  };
  return async (request, reply) => {
    docs ??= load().catch((error: unknown) => {
      docs = undefined;
      throw error;
    });
    const inner = await docs;
    const response = await inner.inject({
      method: request.method === "HEAD" ? "HEAD" : "GET",
      url: request.url,
      headers: request.headers,
    });
    reply.code(response.statusCode);
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !notForwarded.has(name)) reply.header(name, value);
    }
    return reply.send(response.rawPayload);
  };
}
