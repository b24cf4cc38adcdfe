import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/service.js";

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

  it("answers malformed JSON with 400", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/health",
      headers: { "content-type": "application/json" },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { message: "Malformed JSON in request body", code: "BAD_REQUEST" } });
  });

  it("answers a body over 1 MiB with 413", async () => {
    const response = await service.app.inject({
      method: "POST",
      url: "/health",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ blob: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      error: { message: "Request body is larger than 1 MiB", code: "PAYLOAD_TOO_LARGE" },
    });
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
      url: "/health",
      headers: { "content-type": "text/plain" },
      payload: "hello",
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
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
