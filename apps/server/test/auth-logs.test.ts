import { afterAll, beforeAll, expect, it } from "vitest";
import { SESSION_COOKIE } from "../src/auth/cookies.js";
import { type FakeProvider, startFakeProvider } from "./fixtures/oauth-provider.js";
import { type CapturedLog, captureLog } from "./support/log-capture.js";
import { browserSignIn, finishSignIn, startSignIn, visitProvider } from "./support/oauth-flow.js";
import { startTestService, type TestService } from "./support/service.js";

let provider: FakeProvider;
let service: TestService;
let log: CapturedLog;

beforeAll(async () => {
  provider = await startFakeProvider();
  log = captureLog();
  service = await startTestService({ env: provider.env, logger: log.logger });
});
afterAll(async () => {
  await service?.stop();
  await provider?.close();
});

it("never writes secrets to the log", async () => {
  const flow = await browserSignIn(service, "?redirectTo=%2Fsecret-path");
  expect(flow.callback.statusCode).toBe(302);
  const sessionToken = flow.sessionToken!;
  const state = flow.start.location.searchParams.get("state")!;
  const code = flow.callbackUrl.searchParams.get("code")!;
  const codeVerifier = provider.tokenRequests.at(-1)?.get("code_verifier");
  const accessToken = provider.accessTokens.at(-1)!;
  expect(codeVerifier).toBeTruthy();

  const cookie = { [SESSION_COOKIE]: sessionToken };
  const created = await service.app.inject({
    method: "POST",
    url: "/auth/tokens",
    cookies: cookie,
    payload: { name: "logged?" },
  });
  expect(created.statusCode).toBe(201);
  const apiToken: string = created.json().token;
  const used = await service.app.inject({
    method: "GET",
    url: "/auth/session",
    headers: { authorization: `Bearer ${apiToken}` },
  });
  expect(used.statusCode).toBe(200);
  await service.app.inject({
    method: "GET",
    url: "/auth/session",
    headers: { authorization: `Bearer ${sessionToken}` },
  });
  await service.app.inject({ method: "GET", url: "/auth/session", cookies: cookie });

  // Failures log too: a forged state and a failing provider.
  const start = await startSignIn(service);
  const back = await visitProvider(start.location);
  const forged = new URL(back);
  forged.searchParams.set("state", "forged");
  expect((await finishSignIn(service, forged, start.stateCookie)).statusCode).toBe(400);
  provider.token = 500;
  const failedCode = back.searchParams.get("code")!;
  expect((await finishSignIn(service, back, start.stateCookie)).statusCode).toBe(502);
  provider.reset();

  await service.app.inject({ method: "POST", url: "/auth/sign-out", cookies: cookie });

  const text = log.text();
  // The log is really there, at request level, with the callback's query values redacted.
  expect(text).toContain("incoming request");
  expect(text).toContain("/auth/idp/callback?state=[redacted]&code=[redacted]");
  expect(text).toContain("sign-in failed");
  for (const [label, secret] of Object.entries({
    sessionToken,
    apiToken,
    clientSecret: provider.clientSecret,
    code,
    failedCode,
    codeVerifier: codeVerifier!,
    state,
    accessToken,
    stateCookie: start.stateCookie,
  })) {
    expect(text.includes(secret), `${label} appears in the log`).toBe(false);
  }
  expect(text).not.toMatch(/authorization|"cookie"|set-cookie/i);
});
