import { randomBytes } from "node:crypto";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";
import { signIn } from "./support/users.js";

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    env: { ORIGIN_ALLOWED: "https://app.example.com" },
    services: (services) => ({
      ...services,
      health: {
        readiness: async () => {
          throw new Error("connect to postgres://admin:hunter2@db.internal failed");
        },
      },
    }),
  });
});
afterAll(() => service.stop());

describe("health", () => {
  it("answers GET /health with OK", async () => {
    const response = await service.app.inject({ method: "GET", url: "/health" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ message: "OK" });
    expect(response.headers["x-request-id"]).toBeTruthy();
  });
});

describe("error bodies", () => {
  it("answers an unknown route with 404 and the general body", async () => {
    const response = await service.app.inject({ method: "GET", url: "/no/such/route" });
    expect(response.statusCode).toBe(404);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ error: { message: expect.any(String), code: "NOT_FOUND" } });
  });

  // On an operation that takes no input: the body is read, and refused, all the same.
  it("answers malformed JSON with 400", async () => {
    const response = await service.app.inject({
      method: "PATCH",
      url: "/notifications/read-all",
      headers: { "content-type": "application/json" },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { message: "Malformed JSON in request body", code: "BAD_REQUEST" } });
  });

  it("answers a body over 1 MiB with 413", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ blob: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: { message: "Request body is larger than 1 MiB", code: "PAYLOAD_TOO_LARGE" },
    });
  });

  // The body is read before the router's 404, but a path the service does not have answers 404 whatever the body.
  it.each([
    [
      "a body over 1 MiB",
      { "content-type": "application/json" },
      JSON.stringify({ blob: "x".repeat(1024 * 1024 + 10) }),
    ],
    ["malformed JSON", { "content-type": "application/json" }, '{"name": '],
    ["a body that is not JSON", { "content-type": "text/plain" }, "hello"],
    ["a NUL", { "content-type": "application/json" }, '{"name":"a\\u0000b"}'],
    [
      "a cross-site write with the session cookie",
      { "content-type": "application/json", origin: "https://evil.example", cookie: "svcauth.session_token=x" },
      "{}",
    ],
  ])("answers %s on a path it does not have with 404", async (_name, headers, payload) => {
    for (const [method, url] of [
      ["POST", "/health"],
      ["PATCH", "/admin/modpacks/"],
      ["PUT", "/no/such/path"],
    ] as const) {
      const response = await service.app.inject({ method, url, headers, payload });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json().error.code).toBe("NOT_FOUND");
    }
  });

  it("answers a path parameter over 100 characters with 414 and the error body", async () => {
    const response = await service.app.inject({ method: "GET", url: `/modpacks/${"a".repeat(101)}` });
    expect(response.statusCode).toBe(414);
    expect(response.json().error.code).toEqual(expect.any(String));
  });

  it("answers a thrown failure with 500 and no detail of its cause", async () => {
    const response = await service.app.inject({ method: "GET", url: "/health/ready" });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: { message: "Internal server error", code: "INTERNAL_SERVER_ERROR" } });
    expect(response.body).not.toContain("hunter2");
    expect(response.body).not.toContain("postgres://");
  });

  it("keeps internals out of native tRPC errors too", async () => {
    const response = await service.app.inject({ method: "GET", url: "/trpc/health.ready" });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain("hunter2");
    expect(response.json().error.message).toBe("Internal server error");
  });

  it("answers a non-JSON body with 415", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: { "content-type": "text/plain" },
      payload: "hello",
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("one error body on REST and /trpc", () => {
  const missing = "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d";

  /** The same failure over REST and over /trpc: the /trpc error carries the REST body as `data.body`. */
  async function both(
    rest: { method: "GET" | "POST"; url: string; payload?: unknown },
    procedure: { type: "query" | "mutation"; path: string; input: unknown },
    headers: Record<string, string>,
  ) {
    const viaRest = await service.app.inject({
      method: rest.method,
      url: rest.url,
      headers: { ...headers, ...(rest.payload ? { "content-type": "application/json" } : {}) },
      ...(rest.payload ? { payload: JSON.stringify(rest.payload) } : {}),
    });
    const query = procedure.input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(procedure.input))}`;
    const viaTrpc = await service.app.inject(
      procedure.type === "query"
        ? { method: "GET", url: `/trpc/${procedure.path}${query}`, headers }
        : {
            method: "POST",
            url: `/trpc/${procedure.path}`,
            headers: { ...headers, "content-type": "application/json" },
            payload: JSON.stringify(procedure.input),
          },
    );
    const error = viaTrpc.json().error;
    return { rest: viaRest, trpc: viaTrpc, trpcBody: error.data.body, trpcStatus: error.data.httpStatus };
  }

  it("answers a missing modpack's 404 with the same body", async () => {
    const owner = await signIn(service);
    const answer = await both(
      { method: "GET", url: `/modpacks/${missing}` },
      { type: "query", path: "modpacks.get", input: { id: missing } },
      owner.headers,
    );
    expect(answer.rest.statusCode).toBe(404);
    expect(answer.trpc.statusCode).toBe(404);
    expect(answer.trpcStatus).toBe(404);
    expect(answer.rest.json()).toEqual({ error: { message: expect.any(String), code: "NOT_FOUND" } });
    expect(answer.trpcBody).toEqual(answer.rest.json());
  });

  it("answers invalid input's 400 with the same body, issues and all", async () => {
    const owner = await signIn(service);
    const answer = await both(
      { method: "POST", url: "/modpacks", payload: { name: "", isPublic: false } },
      { type: "mutation", path: "modpacks.create", input: { name: "", isPublic: false } },
      owner.headers,
    );
    expect(answer.rest.statusCode).toBe(400);
    expect(answer.trpc.statusCode).toBe(400);
    expect(answer.rest.json().error.issues[0].path).toBe("name");
    expect(answer.trpcBody).toEqual(answer.rest.json());
  });

  it("answers a role's missing permission (403) and a missing session (401) with the same bodies", async () => {
    const user = await signIn(service);
    const forbidden = await both(
      { method: "GET", url: "/admin/users" },
      { type: "query", path: "admin.listUsers", input: {} },
      user.headers,
    );
    expect(forbidden.rest.statusCode).toBe(403);
    expect(forbidden.trpc.statusCode).toBe(403);
    expect(forbidden.rest.json()).toEqual({ message: "Do not have permission" });
    expect(forbidden.trpcBody).toEqual(forbidden.rest.json());

    const anonymous = await both(
      { method: "GET", url: "/admin/users" },
      { type: "query", path: "admin.listUsers", input: {} },
      {},
    );
    expect(anonymous.rest.statusCode).toBe(401);
    expect(anonymous.rest.json()).toEqual({ message: "Unauthorized" });
    expect(anonymous.trpcBody).toEqual(anonymous.rest.json());
  });

  it("answers another user's private modpack (403 Access denied) with the same body", async () => {
    const owner = await signIn(service);
    const stranger = await signIn(service);
    const created = await service.app.inject({
      method: "POST",
      url: "/modpacks",
      headers: { ...owner.headers, "content-type": "application/json" },
      payload: JSON.stringify({ name: "Private pack", isPublic: false }),
    });
    const id = created.json().id;
    const answer = await both(
      { method: "GET", url: `/modpacks/${id}` },
      { type: "query", path: "modpacks.get", input: { id } },
      stranger.headers,
    );
    expect(answer.rest.statusCode).toBe(403);
    expect(answer.rest.json()).toEqual({ error: { message: "Access denied", code: "FORBIDDEN" } });
    expect(answer.trpcBody).toEqual(answer.rest.json());
  });

  it("keeps a thrown failure's 500 body free of its cause on both", async () => {
    const answer = await both(
      { method: "GET", url: "/health/ready" },
      { type: "query", path: "health.ready", input: undefined },
      {},
    );
    expect(answer.rest.statusCode).toBe(500);
    expect(answer.trpcBody).toEqual(answer.rest.json());
    expect(JSON.stringify(answer.trpcBody)).not.toContain("hunter2");
  });
});

describe("CORS", () => {
  it("allows a preflight from a listed origin with credentials", async () => {
    const response = await service.app.inject({
      method: "OPTIONS",
      url: "/modpacks",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,authorization",
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    expect(response.headers["access-control-allow-credentials"]).toBe("true");
    expect(String(response.headers["access-control-allow-methods"])).toContain("PATCH");
    expect(String(response.headers["access-control-allow-headers"]).toLowerCase()).toContain("authorization");
  });

  it("refuses a preflight from an origin that is not listed", async () => {
    const response = await service.app.inject({
      method: "OPTIONS",
      url: "/modpacks",
      headers: { origin: "https://evil.example.net", "access-control-request-method": "POST" },
    });
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    expect(response.headers["access-control-allow-credentials"]).toBeUndefined();
  });
});

describe("OpenAPI and docs", () => {
  it("serves a valid OpenAPI 3.1 document", async () => {
    const response = await service.app.inject({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
    expect(document.paths["/health"].get.operationId).toBe("getHealth");
    expect(document.paths["/docs"].get).toBeDefined();
    expect(document.components.securitySchemes.cookieAuth).toEqual({
      type: "apiKey",
      in: "cookie",
      name: "svcauth.session_token",
    });
  });

  it("serves the Scalar reference at /docs outside production", async () => {
    const response = await service.app.inject({ method: "GET", url: "/docs/" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/text\/html/);
    expect(response.body.toLowerCase()).toContain("scalar");
    expect(response.body).toContain("/openapi.json");
  });
});

describe("production mode", () => {
  it("does not serve /docs", async () => {
    const production = await startTestService({
      env: {
        NODE_ENV: "production",
        PUBLIC_URL: "https://modpacks.example.com",
        WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
        OAUTH_PROVIDER: "custom",
        OAUTH_CLIENT_ID: "client",
        OAUTH_CLIENT_SECRET: "secret",
        OAUTH_AUTHORIZATION_URL: "https://idp.example.com/authorize",
        OAUTH_TOKEN_URL: "https://idp.example.com/token",
        OAUTH_USERINFO_URL: "https://idp.example.com/userinfo",
      },
    });
    try {
      for (const url of ["/docs", "/docs/"]) {
        const response = await production.app.inject({ method: "GET", url });
        expect(response.statusCode).toBe(404);
        expect(response.json().error.code).toBe("NOT_FOUND");
      }
      const health = await production.app.inject({ method: "GET", url: "/health" });
      expect(health.statusCode).toBe(200);
      const index = await production.app.inject({ method: "GET", url: "/" });
      expect(index.json()).toEqual({ name: "Modpack Collection Service", openapi: "/openapi.json", health: "/health" });
    } finally {
      await production.stop();
    }
  });
});

describe("the root path", () => {
  it("sends a browser to the docs outside production", async () => {
    const response = await service.app.inject({ method: "GET", url: "/" });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe("/docs/");
  });
});
