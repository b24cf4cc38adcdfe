import type { Config } from "../config.js";

/** Everything the sign-in flow needs to talk to one OAuth 2.0 identity provider. */
export interface ProviderConfig {
  /** The name accounts are recorded under (`accounts.provider`): the preset, `custom`, or `dev`. */
  name: string;
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  scopes: string[];
  /** GitHub only: where the verified primary email is read when the profile hides it. */
  emailsUrl?: string | undefined;
}

type Preset = Pick<ProviderConfig, "authorizationUrl" | "tokenUrl" | "userinfoUrl" | "scopes" | "emailsUrl">;

const providerPresets: Readonly<Record<"discord" | "github" | "google", Preset>> = {
  discord: {
    authorizationUrl: "https://discord.com/oauth2/authorize",
    tokenUrl: "https://discord.com/api/oauth2/token",
    userinfoUrl: "https://discord.com/api/users/@me",
    scopes: ["identify", "email"],
  },
  github: {
    authorizationUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    userinfoUrl: "https://api.github.com/user",
    scopes: ["read:user", "user:email"],
    emailsUrl: "https://api.github.com/user/emails",
  },
  google: {
    authorizationUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    userinfoUrl: "https://openidconnect.googleapis.com/v1/userinfo",
    scopes: ["openid", "email", "profile"],
  },
};

/**
 * The configured provider: a preset (its URLs and scopes overridable by the OAUTH_* variables) or
 * `custom` (all from the variables); undefined when OAUTH_PROVIDER is unset.
 */
export function configuredProvider(config: Config): ProviderConfig | undefined {
  const { oauth } = config;
  if (!oauth.provider) return undefined;
  const preset: Partial<Preset> = oauth.provider === "custom" ? {} : providerPresets[oauth.provider];
  const authorizationUrl = oauth.authorizationUrl ?? preset.authorizationUrl;
  const tokenUrl = oauth.tokenUrl ?? preset.tokenUrl;
  const userinfoUrl = oauth.userinfoUrl ?? preset.userinfoUrl;
  if (!oauth.clientId || !oauth.clientSecret || !authorizationUrl || !tokenUrl || !userinfoUrl) {
    // loadConfig already refuses this; kept so a hand-built config cannot start half-configured.
    throw new Error(`OAuth provider ${oauth.provider} is missing its client credentials or URLs`);
  }
  return {
    name: oauth.provider,
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    authorizationUrl,
    tokenUrl,
    userinfoUrl,
    scopes: oauth.scopes ?? preset.scopes ?? [],
    emailsUrl: preset.emailsUrl,
  };
}

/** The identity a provider vouches for, mapped to the service's user fields. */
export interface ProviderProfile {
  id: string;
  name: string;
  email: string | null;
  /** False only when the provider says outright that the email is not verified. */
  emailVerified: boolean;
  image: string | null;
}

/** The provider answered something the service cannot use (a 502 for the caller). */
export class ProviderError extends Error {
  override name = "ProviderError";
}

const MAX_NAME_LENGTH = 200;
const MAX_URL_LENGTH = 2048;

function text(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

function httpUrl(value: unknown): string | undefined {
  const candidate = text(value);
  const url = candidate && candidate.length <= MAX_URL_LENGTH && URL.canParse(candidate) ? new URL(candidate) : null;
  return url?.protocol === "https:" || url?.protocol === "http:" ? url.toString() : undefined;
}

function isFalse(value: unknown): boolean {
  return value === false || value === "false";
}

/**
 * Maps a userinfo response to a profile: id from `sub` or `id` (numbers
 * become strings); name from `name`, `global_name`, `username` or `login`; `email`; image from
 * `picture` or `avatar_url`, or for Discord the CDN URL built from `id` and the `avatar` hash.
 * Throws ProviderError when there is no usable id.
 */
export function mapUserinfo(provider: string, data: unknown): ProviderProfile {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ProviderError("The identity provider's user profile is not a JSON object");
  }
  const info = data as Record<string, unknown>;
  const rawId = info.sub ?? info.id;
  const id = typeof rawId === "number" && Number.isFinite(rawId) ? String(rawId) : text(rawId);
  if (!id || id.length > 255) throw new ProviderError("The identity provider's user profile has no user id");

  const email = text(info.email);
  const validEmail = email && email.length <= 320 && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null;
  const emailVerified = !isFalse(info.email_verified) && !isFalse(info.verified);

  const name =
    text(info.name) ??
    text(info.global_name) ??
    text(info.username) ??
    text(info.login) ??
    validEmail?.split("@")[0] ??
    `User ${id}`;

  let image = httpUrl(info.picture) ?? httpUrl(info.avatar_url) ?? null;
  if (!image && provider === "discord") {
    const hash = text(info.avatar);
    if (hash && /^(a_)?[0-9a-f]{32}$/i.test(hash) && /^\d+$/.test(id)) {
      image = `https://cdn.discordapp.com/avatars/${id}/${hash}.${hash.startsWith("a_") ? "gif" : "png"}`;
    }
  }

  return { id, name: name.slice(0, MAX_NAME_LENGTH), email: validEmail, emailVerified, image };
}

/** GitHub's `/user/emails`: the primary verified address, else any verified one, else null. */
export function pickGithubEmail(data: unknown): string | null {
  if (!Array.isArray(data)) return null;
  const verified = data.filter(
    (entry): entry is { email: string; primary?: unknown } =>
      typeof entry === "object" && entry !== null && entry.verified === true && typeof entry.email === "string",
  );
  return (verified.find((entry) => entry.primary === true) ?? verified[0])?.email ?? null;
}
