import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { trpcUrl } from "../src/client.js";
import { type ApiError, createClient, fromErrorBody, isApiError, toApiError } from "../src/index.js";

interface Captured {
  url: string;
  headers: Record<string, string>;
  credentials: string | undefined;
}

/** A `fetch` that records each request and answers with `respond`'s response. */
function fakeFetch(respond: (url: string) => Response | Promise<Response>) {
  const requests: Captured[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    requests.push({
      url,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      credentials: init?.credentials,
    });
    return respond(url);
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

/** A batch answer of the service's error formatter for one call. */
function errorAnswer(status: number, data: Record<string, unknown>, message: string): Response {
  const body = [{ error: { message, code: -32000, data: { path: "modpacks.create", ...data, httpStatus: status } } }];
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

async function failure(call: () => Promise<unknown>): Promise<ApiError> {
  try {
    await call();
  } catch (error) {
    return toApiError(error);
  }
  throw new Error("the call did not fail");
}

describe("createClient", () => {
  it("calls <baseUrl>/trpc with the cookie (credentials include) by default, and no Authorization", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json([{ result: { data: { message: "OK" } } }]));
    const client = createClient({ baseUrl: "https://api.example.com/", fetch });
    expect(await client.health.check.query()).toEqual({ message: "OK" });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toMatch(/^https:\/\/api\.example\.com\/trpc\/health\.check\?batch=1/);
    expect(requests[0]?.credentials).toBe("include");
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it("sends a token as Bearer, merged with headers from an async function, and honours credentials", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json([{ result: { data: { message: "OK" } } }]));
    const client = createClient({
      baseUrl: "http://localhost:3000",
      fetch,
      credentials: "omit",
      token: async () => "mcs_secret",
      headers: async () => ({ "x-trace": "abc", Authorization: "Basic old" }),
    });
    await client.health.check.query();
    expect(requests[0]?.headers).toEqual({ authorization: "Bearer mcs_secret", "x-trace": "abc" });
    expect(requests[0]?.credentials).toBe("omit");
  });

  it("builds the endpoint from any base URL", () => {
    expect(trpcUrl("http://localhost:3000")).toBe("http://localhost:3000/trpc");
    expect(trpcUrl("https://example.com/api//")).toBe("https://example.com/api/trpc");
  });
});

describe("toApiError", () => {
  it("keeps the service's status, code and message", async () => {
    const { fetch } = fakeFetch(() => errorAnswer(403, { code: "FORBIDDEN" }, "Do not have permission"));
    const client = createClient({ baseUrl: "http://localhost", fetch });
    const error = await failure(() => client.modpacks.create.mutate({ name: "Pack" }));
    expect(error).toEqual({ status: 403, code: "FORBIDDEN", message: "Do not have permission" });
  });

  it("gives invalid input the REST API's message and the issues", async () => {
    const issues = [
      { path: "name", message: "Must be 3-50 characters" },
      { path: "", message: "Unrecognized key" },
    ];
    const { fetch } = fakeFetch(() => errorAnswer(400, { code: "BAD_REQUEST", issues }, "Invalid input"));
    const client = createClient({ baseUrl: "http://localhost", fetch });
    const error = await failure(() => client.modpacks.create.mutate({ name: "x" }));
    expect(error).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "Invalid input: name: Must be 3-50 characters",
      issues,
    });
  });

  it("reads the service's error body, which /trpc carries as data.body, the same way as a REST body", async () => {
    const body = {
      error: { message: "Service temporarily unavailable, try again shortly", code: "SERVICE_UNAVAILABLE" },
    };
    const { fetch } = fakeFetch(() =>
      errorAnswer(503, { code: "INTERNAL_SERVER_ERROR", body }, "Internal server error"),
    );
    const client = createClient({ baseUrl: "http://localhost", fetch });
    const viaTrpc = await failure(() => client.modpacks.create.mutate({ name: "Pack" }));
    expect(viaTrpc).toEqual({ status: 503, code: "SERVICE_UNAVAILABLE", message: body.error.message });
    expect(fromErrorBody(503, body)).toEqual(viaTrpc);

    const issues = [{ path: "name", message: "Must be 3-50 characters" }];
    const invalid = { error: { message: "Invalid input: name: Must be 3-50 characters", code: "BAD_REQUEST", issues } };
    const input = fakeFetch(() => errorAnswer(400, { code: "BAD_REQUEST", issues, body: invalid }, "Invalid input"));
    const inputError = await failure(() =>
      createClient({ baseUrl: "http://localhost", fetch: input.fetch }).modpacks.create.mutate({ name: "x" }),
    );
    expect(inputError).toEqual({ status: 400, code: "BAD_REQUEST", message: invalid.error.message, issues });
    expect(fromErrorBody(400, invalid)).toEqual(inputError);
  });

  it("reports a request that got no answer as a network error", async () => {
    const { fetch } = fakeFetch(() => {
      throw new TypeError("fetch failed");
    });
    const client = createClient({ baseUrl: "http://localhost", fetch });
    expect(await failure(() => client.health.check.query())).toEqual({
      status: 0,
      code: "NETWORK_ERROR",
      message: "fetch failed",
    });
  });

  it("keeps the status of an answer that was not the service's (a proxy's error page)", async () => {
    const { fetch } = fakeFetch(() => new Response("<html>Bad gateway</html>", { status: 502 }));
    const client = createClient({ baseUrl: "http://localhost", fetch });
    const error = await failure(() => client.health.check.query());
    expect(error).toEqual({ status: 502, code: "BAD_GATEWAY", message: "HTTP 502" });
  });

  it("reads the service's REST-shaped answers from outside tRPC (a refused cross-site write, a body too large)", async () => {
    const message = "Cross-site request from https://elsewhere.example refused";
    const { fetch } = fakeFetch(() => Response.json({ error: { message, code: "FORBIDDEN" } }, { status: 403 }));
    const client = createClient({ baseUrl: "http://localhost", fetch });
    expect(await failure(() => client.modpacks.create.mutate({ name: "Pack" }))).toEqual({
      status: 403,
      code: "FORBIDDEN",
      message,
    });
    const unauthorized = fakeFetch(() => Response.json({ message: "Unauthorized" }, { status: 401 }));
    const anonymous = createClient({ baseUrl: "http://localhost", fetch: unauthorized.fetch });
    expect(await failure(() => anonymous.auth.session.query())).toEqual({
      status: 401,
      code: "UNAUTHORIZED",
      message: "Unauthorized",
    });
  });

  it("turns anything else into a 500, and returns an ApiError as it is", () => {
    expect(toApiError(new RangeError("boom"))).toEqual({ status: 500, code: "INTERNAL_SERVER_ERROR", message: "boom" });
    expect(toApiError("nope")).toEqual({
      status: 500,
      code: "INTERNAL_SERVER_ERROR",
      message: "Internal server error",
    });
    const apiError: ApiError = { status: 404, code: "NOT_FOUND", message: "Modpack not found" };
    expect(toApiError(apiError)).toBe(apiError);
    const fromServer = TRPCClientError.from({
      error: { message: "Unauthorized", code: -32001, data: { code: "UNAUTHORIZED", httpStatus: 401 } },
    });
    expect(toApiError(fromServer)).toEqual({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
  });
});

describe("isApiError", () => {
  it("recognises an ApiError, optionally by code", () => {
    const error: ApiError = { status: 401, code: "UNAUTHORIZED", message: "Unauthorized" };
    expect(isApiError(error)).toBe(true);
    expect(isApiError(error, "UNAUTHORIZED")).toBe(true);
    expect(isApiError(error, "FORBIDDEN")).toBe(false);
    expect(isApiError(new Error("Unauthorized"))).toBe(false);
    expect(isApiError({ status: 401 })).toBe(false);
    expect(isApiError(null)).toBe(false);
  });
});
