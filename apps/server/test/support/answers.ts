import type { Readable } from "node:stream";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";

/** One answer the service gave, as the HTTP layer sent it. */
export interface Answer {
  method: string;
  /** The path and query the request asked for. */
  url: string;
  /** The route Fastify matched, in OpenAPI's `{param}` form; undefined when no route matched. */
  route: string | undefined;
  status: number;
  contentType: string | undefined;
  /** The body as sent; undefined for a streamed body (a download, an event stream), whose bytes are not kept. */
  body: string | undefined;
}

/**
 * Records every answer the app sends, from its `onSend` hook, so a test file can hold them against
 * the OpenAPI document when its service stops. The hook must be added before the app is ready.
 */
export function recordAnswers(app: FastifyInstance): Answer[] {
  const answers: Answer[] = [];
  app.addHook("onSend", async (request, reply, payload) => {
    const type = reply.getHeader("content-type");
    answers.push({
      method: request.method,
      url: request.url,
      // Fastify's `:param` as OpenAPI's `{param}`; `/docs/` and `/docs` are one path to the document.
      route: request.routeOptions.url?.replace(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1"),
      status: reply.statusCode,
      contentType: typeof type === "string" ? type : undefined,
      body:
        typeof payload === "string"
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString("utf8")
            : payload === null || payload === undefined
              ? ""
              : undefined,
    });
    return payload as string | Buffer | Readable | null;
  });
  return answers;
}

interface MediaType {
  schema?: object;
}
interface Response {
  $ref?: string;
  content?: Record<string, MediaType>;
}
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
  components?: { schemas?: Record<string, object>; responses?: Record<string, Response> };
}

/**
 * Answers that are not the REST API's, and so not the document's to describe: tRPC's own protocol
 * (typed by the contract), the CORS preflight, the development identity provider (a stand-in for an
 * OAuth provider, absent from production) and the reference's static assets under `/docs/`.
 */
function outsideTheDocument(answer: Answer): boolean {
  const path = answer.url.split("?")[0] ?? "";
  if (answer.method === "OPTIONS") return true;
  return /^\/(trpc|dev-idp)(\/|$)/.test(path) || (/^\/docs\/./.test(path) && answer.route !== "/docs");
}

/**
 * Holds each answer against the document: its route and method must be an operation (or, for a
 * path the document does not have, the answer must be the documented 404 with the general error
 * body), its status a declared response, and its body one the declared schema of its media type
 * accepts. Returns one line per answer that the document does not describe.
 */
export function undeclaredAnswers(document: Document, answers: Answer[]): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (key: string, schema: object) => {
    let validate = validators.get(key);
    if (!validate) {
      // The schema beside the document's components, so its `#/components/...` references resolve.
      validate = ajv.compile({ ...schema, components: document.components });
      validators.set(key, validate);
    }
    return validate;
  };
  const resolve = (response: Response | undefined): Response | undefined =>
    response?.$ref ? document.components?.responses?.[response.$ref.replace("#/components/responses/", "")] : response;
  // Unknown paths answer the general error body.
  const notFound: Response = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };

  // One line per kind of problem on a route, with the first answer that showed it.
  const problems = new Map<string, string>();
  const report = (kind: string, detail = "") => {
    if (!problems.has(kind)) problems.set(kind, `${kind}${detail}`);
  };
  for (const answer of answers) {
    if (outsideTheDocument(answer)) continue;
    // The route, not the URL: hostile URLs are long, and one line per route and status is enough.
    const where = `${answer.method} ${answer.route ?? answer.url.split("?")[0]?.slice(0, 80)} → ${answer.status}`;
    const method = answer.method === "HEAD" ? "get" : answer.method.toLowerCase();
    const operation = answer.route === undefined ? undefined : document.paths[answer.route]?.[method];
    let response: Response | undefined;
    let key: string;
    if (!operation) {
      if (answer.status !== 404) {
        report(`${where}: not a path of the document, so only its 404 is`);
        continue;
      }
      response = notFound;
      key = "404 of a path not in the document";
    } else {
      const responses = operation.responses ?? {};
      const declared =
        responses[String(answer.status)] ?? responses[`${String(answer.status)[0]}XX`] ?? responses.default;
      response = resolve(declared);
      key = `${method} ${answer.route} ${answer.status}`;
      if (!response) {
        report(`${where}: not a declared status`);
        continue;
      }
    }
    if (answer.method === "HEAD" || answer.body === "" || answer.status === 304 || answer.status === 204) continue;
    const mediaType = answer.contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
    const content = response.content ?? {};
    const media = content[mediaType] ?? content[`${mediaType.split("/")[0]}/*`] ?? content["*/*"];
    if (!media) {
      report(`${where}: ${key} declares no ${mediaType || "body"}`, ` (declared: ${Object.keys(content).join(", ")})`);
      continue;
    }
    if (answer.body === undefined || !media.schema || !/[/+]json$/.test(mediaType)) continue;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      report(`${where}: the ${mediaType} body is not JSON`, `: ${answer.body.slice(0, 120)}`);
      continue;
    }
    const validate = validatorOf(`${key} ${mediaType}`, media.schema);
    if (!validate(body)) {
      const error = validate.errors?.[0];
      report(
        `${where}: the body breaks the schema at ${error?.instancePath || "/"} (${error?.message})`,
        `: ${answer.body.slice(0, 200)}`,
      );
    }
  }
  return [...problems.values()];
}
