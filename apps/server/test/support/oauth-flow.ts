import type { LightMyRequestResponse } from "fastify";
import { SESSION_COOKIE } from "../../src/auth/cookies.js";
import { STATE_COOKIE } from "../../src/auth/oauth.js";
import type { TestService } from "./service.js";

export interface StartedSignIn {
  response: LightMyRequestResponse;
  /** Where the service sent the browser (the provider's authorization URL). */
  location: URL;
  /** The value of the `svcauth.oauth_state` cookie. */
  stateCookie: string;
}

export interface BrowserSignIn {
  start: StartedSignIn;
  /** The service URL the provider sent the browser back to. */
  callbackUrl: URL;
  callback: LightMyRequestResponse;
  /** The session token from the callback's Set-Cookie, when one was set. */
  sessionToken: string | undefined;
}

/** `GET /auth/idp` through inject, as a browser would. */
export async function startSignIn(service: TestService, query = ""): Promise<StartedSignIn> {
  const response = await service.app.inject({ method: "GET", url: `/auth/idp${query}` });
  if (response.statusCode !== 302) throw new Error(`/auth/idp answered ${response.statusCode}: ${response.body}`);
  const stateCookie = response.cookies.find((cookie) => cookie.name === STATE_COOKIE);
  if (!stateCookie) throw new Error("/auth/idp set no state cookie");
  return { response, location: new URL(String(response.headers.location)), stateCookie: stateCookie.value };
}

/** Follows the redirect to a provider on a real port and answers where it sends the browser back. */
export async function visitProvider(location: URL): Promise<URL> {
  const response = await fetch(location, { redirect: "manual" });
  const back = response.headers.get("location");
  if (response.status !== 302 || !back) throw new Error(`the provider answered ${response.status}`);
  return new URL(back);
}

/** The callback through inject, carrying the state cookie (or none). */
export function finishSignIn(
  service: TestService,
  callbackUrl: URL,
  stateCookie: string | undefined,
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: "GET",
    url: `${callbackUrl.pathname}${callbackUrl.search}`,
    ...(stateCookie === undefined ? {} : { cookies: { [STATE_COOKIE]: stateCookie } }),
  });
}

export function sessionTokenOf(response: LightMyRequestResponse): string | undefined {
  return response.cookies.find((cookie) => cookie.name === SESSION_COOKIE && cookie.value !== "")?.value;
}

/** The whole browser round trip: service → provider → service callback. */
export async function browserSignIn(service: TestService, query = ""): Promise<BrowserSignIn> {
  const start = await startSignIn(service, query);
  const callbackUrl = await visitProvider(start.location);
  const callback = await finishSignIn(service, callbackUrl, start.stateCookie);
  return { start, callbackUrl, callback, sessionToken: sessionTokenOf(callback) };
}

export function setCookieHeaders(response: LightMyRequestResponse): string[] {
  const header = response.headers["set-cookie"];
  return header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
}
