import { describe, expect, it } from "vitest";
import { openPendingSignIn, safeRedirectTarget, sealPendingSignIn } from "../src/auth/oauth.js";
import { configuredProvider, mapUserinfo, ProviderError, pickGithubEmail } from "../src/auth/providers.js";
import { type Config, loadConfig } from "../src/config.js";
import { redactUrl, serializeRequest } from "../src/edge/log-redaction.js";

const base = { OAUTH_CLIENT_ID: "id", OAUTH_CLIENT_SECRET: "secret" };

describe("provider presets", () => {
  it.each([
    [
      "discord",
      "https://discord.com/oauth2/authorize",
      "https://discord.com/api/oauth2/token",
      "https://discord.com/api/users/@me",
      ["identify", "email"],
    ],
    [
      "github",
      "https://github.com/login/oauth/authorize",
      "https://github.com/login/oauth/access_token",
      "https://api.github.com/user",
      ["read:user", "user:email"],
    ],
    [
      "google",
      "https://accounts.google.com/o/oauth2/v2/auth",
      "https://oauth2.googleapis.com/token",
      "https://openidconnect.googleapis.com/v1/userinfo",
      ["openid", "email", "profile"],
    ],
  ] as const)("%s has its URLs and default scopes", (name, authorizationUrl, tokenUrl, userinfoUrl, scopes) => {
    const provider = configuredProvider(loadConfig({ ...base, OAUTH_PROVIDER: name }));
    expect(provider).toMatchObject({
      name,
      clientId: "id",
      clientSecret: "secret",
      authorizationUrl,
      tokenUrl,
      userinfoUrl,
      scopes,
    });
  });

  it("lets OAUTH_* variables override a preset", () => {
    const provider = configuredProvider(
      loadConfig({
        ...base,
        OAUTH_PROVIDER: "github",
        OAUTH_AUTHORIZATION_URL: "https://ghe.example.com/login/oauth/authorize",
        OAUTH_TOKEN_URL: "https://ghe.example.com/login/oauth/access_token",
        OAUTH_USERINFO_URL: "https://ghe.example.com/api/v3/user",
        OAUTH_SCOPES: "read:user,user:email repo",
      }),
    );
    expect(provider).toMatchObject({
      authorizationUrl: "https://ghe.example.com/login/oauth/authorize",
      tokenUrl: "https://ghe.example.com/login/oauth/access_token",
      userinfoUrl: "https://ghe.example.com/api/v3/user",
      scopes: ["read:user", "user:email", "repo"],
    });
  });

  it("takes a custom provider entirely from the variables", () => {
    const provider = configuredProvider(
      loadConfig({
        ...base,
        OAUTH_PROVIDER: "custom",
        OAUTH_AUTHORIZATION_URL: "https://idp.example.com/a",
        OAUTH_TOKEN_URL: "https://idp.example.com/t",
        OAUTH_USERINFO_URL: "https://idp.example.com/u",
      }),
    );
    expect(provider).toMatchObject({
      name: "custom",
      authorizationUrl: "https://idp.example.com/a",
      tokenUrl: "https://idp.example.com/t",
      userinfoUrl: "https://idp.example.com/u",
      scopes: [],
    });
  });

  it("is undefined without OAUTH_PROVIDER", () => {
    expect(configuredProvider(loadConfig({}))).toBeUndefined();
  });
});

describe("mapUserinfo", () => {
  it.each([
    [
      "OIDC (google)",
      "google",
      { sub: "1098", name: "Kate", email: "kate@example.com", email_verified: true, picture: "https://lh3/k.png" },
      { id: "1098", name: "Kate", email: "kate@example.com", emailVerified: true, image: "https://lh3/k.png" },
    ],
    [
      "github: numeric id, login, avatar_url",
      "github",
      {
        id: 583231,
        login: "octocat",
        name: null,
        email: null,
        avatar_url: "https://avatars.githubusercontent.com/u/1",
      },
      {
        id: "583231",
        name: "octocat",
        email: null,
        emailVerified: true,
        image: "https://avatars.githubusercontent.com/u/1",
      },
    ],
    [
      "github: name wins over login",
      "github",
      { id: 1, login: "octocat", name: "The Octocat", email: "o@github.com" },
      { id: "1", name: "The Octocat", email: "o@github.com", emailVerified: true, image: null },
    ],
    [
      "discord: global_name, avatar hash",
      "discord",
      {
        id: "80351110224678912",
        username: "nelly",
        global_name: "Nelly",
        email: "nelly@example.com",
        verified: true,
        avatar: "8342729096ea3675442027381ff50dfe",
      },
      {
        id: "80351110224678912",
        name: "Nelly",
        email: "nelly@example.com",
        emailVerified: true,
        image: "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
      },
    ],
    [
      "discord: animated avatar, no global_name",
      "discord",
      { id: "42", username: "nelly", global_name: null, avatar: "a_8342729096ea3675442027381ff50dfe" },
      {
        id: "42",
        name: "nelly",
        email: null,
        emailVerified: true,
        image: "https://cdn.discordapp.com/avatars/42/a_8342729096ea3675442027381ff50dfe.gif",
      },
    ],
    [
      "discord: no avatar, unverified email",
      "discord",
      { id: "42", username: "nelly", avatar: null, email: "n@example.com", verified: false },
      { id: "42", name: "nelly", email: "n@example.com", emailVerified: false, image: null },
    ],
    [
      "custom: sub preferred over id; username",
      "custom",
      { sub: "abc", id: "ignored", username: "sam", avatar_url: "http://img.example.com/sam.png" },
      { id: "abc", name: "sam", email: null, emailVerified: true, image: "http://img.example.com/sam.png" },
    ],
    [
      "no name at all: the email's local part",
      "custom",
      { sub: "abc", email: "solo@example.com" },
      { id: "abc", name: "solo", email: "solo@example.com", emailVerified: true, image: null },
    ],
    [
      "unusable image and email are dropped",
      "custom",
      { sub: "x", name: "  X  ", email: "not-an-email", picture: "javascript:alert(1)", email_verified: "false" },
      { id: "x", name: "X", email: null, emailVerified: false, image: null },
    ],
    [
      "no name and no email",
      "custom",
      { id: 7 },
      { id: "7", name: "User 7", email: null, emailVerified: true, image: null },
    ],
  ])("%s", (_label, provider, info, expected) => {
    expect(mapUserinfo(provider, info)).toEqual(expected);
  });

  it.each([
    ["no id", { name: "Kate" }],
    ["empty id", { sub: "", name: "Kate" }],
    ["id of another type", { id: { nested: 1 } }],
    ["not an object", "hello"],
    ["an array", [{ sub: "1" }]],
    ["null", null],
  ])("throws a ProviderError for %s", (_label, info) => {
    expect(() => mapUserinfo("custom", info)).toThrow(ProviderError);
  });

  it("picks GitHub's primary verified email", () => {
    expect(
      pickGithubEmail([
        { email: "old@example.com", verified: true, primary: false },
        { email: "main@example.com", verified: true, primary: true },
        { email: "unverified@example.com", verified: false, primary: false },
      ]),
    ).toBe("main@example.com");
    expect(pickGithubEmail([{ email: "x@example.com", verified: false, primary: true }])).toBeNull();
    expect(pickGithubEmail({ message: "Bad credentials" })).toBeNull();
  });
});

describe("safeRedirectTarget", () => {
  const config: Config = loadConfig({
    PUBLIC_URL: "https://api.example.com",
    ORIGIN_ALLOWED: "https://app.example.com,http://localhost:5173",
  });
  it.each([
    ["/", "/"],
    ["/modpacks?page=2#top", "/modpacks?page=2#top"],
    ["/a b", "/a%20b"],
    ["https://api.example.com/modpacks", "https://api.example.com/modpacks"],
    ["https://app.example.com/after-login?x=1", "https://app.example.com/after-login?x=1"],
    ["http://localhost:5173/", "http://localhost:5173/"],
  ])("accepts %s", (value, expected) => {
    expect(safeRedirectTarget(value, config)).toBe(expected);
  });

  it.each([
    "//evil.com",
    "//evil.com/path",
    "https://evil.com",
    "https://evil.com/https://app.example.com",
    "/\\evil.com",
    "\\\\evil.com",
    "/\t/evil.com",
    "/\n/evil.com",
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "data:text/html,hi",
    "https://app.example.com.evil.com/",
    "https://user:pass@app.example.com/",
    "http://app.example.com/",
    "https://app.example.com:8443/",
    "evil.com",
    "modpacks",
    "",
    `/${"a".repeat(3000)}`,
  ])("ignores %j", (value) => {
    expect(safeRedirectTarget(value, config)).toBeUndefined();
  });

  it("ignores anything that is not a string", () => {
    expect(safeRedirectTarget(["/a", "/b"], config)).toBeUndefined();
    expect(safeRedirectTarget(undefined, config)).toBeUndefined();
  });
});

describe("the state cookie", () => {
  const provider = configuredProvider(
    loadConfig({
      ...base,
      OAUTH_PROVIDER: "custom",
      OAUTH_AUTHORIZATION_URL: "https://idp.example.com/a",
      OAUTH_TOKEN_URL: "https://idp.example.com/t",
      OAUTH_USERINFO_URL: "https://idp.example.com/u",
    }),
  )!;
  const pending = { state: "s", codeVerifier: "v", redirectTo: "/x", expiresAt: 2_000 };

  it("opens what it sealed until it expires", () => {
    const sealed = sealPendingSignIn(pending, provider);
    expect(openPendingSignIn(sealed, provider, 1_000)).toEqual(pending);
    expect(openPendingSignIn(sealed, provider, 2_000)).toBeUndefined();
  });

  it("refuses a tampered or foreign cookie", () => {
    const sealed = sealPendingSignIn(pending, provider);
    const [, mac] = sealed.split(".");
    const forged = `${Buffer.from(JSON.stringify({ ...pending, state: "attacker" })).toString("base64url")}.${mac}`;
    expect(openPendingSignIn(forged, provider, 1_000)).toBeUndefined();
    expect(openPendingSignIn(sealed, { ...provider, clientSecret: "other" }, 1_000)).toBeUndefined();
    expect(openPendingSignIn(`${sealed}.x`, provider, 1_000)).toBeUndefined();
    expect(openPendingSignIn("garbage", provider, 1_000)).toBeUndefined();
    expect(openPendingSignIn(undefined, provider, 1_000)).toBeUndefined();
  });
});

describe("log redaction", () => {
  it.each([
    ["/auth/idp/callback?code=abc&state=def", "/auth/idp/callback?code=[redacted]&state=[redacted]"],
    ["/auth/idp?redirectTo=%2Fx", "/auth/idp?redirectTo=[redacted]"],
    ["/dev-idp/authorize?client_id=a&state=b&flag", "/dev-idp/authorize?client_id=[redacted]&state=[redacted]&flag"],
    ["/auth/session", "/auth/session"],
    ["/modpacks/public?page=2", "/modpacks/public?page=2"],
  ])("%s", (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it("serializes a request without headers", () => {
    const logged = serializeRequest({
      method: "GET",
      url: "/auth/idp/callback?code=secret",
      headers: { authorization: "Bearer x", cookie: "a=b", host: "h" },
      ip: "127.0.0.1",
    });
    expect(JSON.stringify(logged)).not.toMatch(/secret|Bearer|a=b/);
    expect(logged).toMatchObject({ method: "GET", url: "/auth/idp/callback?code=[redacted]", host: "h" });
  });
});
