import { type Caller, callerHasScope } from "./access.js";
import { noPermission, unauthorized } from "./errors.js";
import { type Permission, roleHasPermission, type TokenScope } from "./permissions.js";

/**
 * Who may call an operation, procedures and plain routes alike: decided by `admit` once per
 * request, and written into the OpenAPI document by `admissionText`.
 */
export interface Admission {
  /** A signed-in caller is needed (401 without one). */
  signedIn: boolean;
  /** The role permission a signed-in caller needs (403 `Do not have permission`). */
  permission?: Permission | undefined;
  /** The API token scope the caller's credentials need. */
  scope: TokenScope;
  /** It acts on the caller's whole account: a token limited to modpacks is refused. */
  wholeAccount?: boolean | undefined;
}

/** What an operation declares about its callers: procedures in their meta, plain routes in their declaration. */
export interface AdmissionRules {
  permission?: Permission | undefined;
  scope?: TokenScope | undefined;
  wholeAccount?: boolean | undefined;
}

/**
 * The one builder of an operation's admission from what it declares: a signed-in caller holding its
 * permission unless it is public, and its own token scope, else `read` for what changes nothing (a
 * GET, a query) and `write` for the rest.
 */
export function admissionOf(rules: AdmissionRules, options: { signedIn: boolean; changes: boolean }): Admission {
  return {
    signedIn: options.signedIn,
    ...(options.signedIn && rules.permission ? { permission: rules.permission } : {}),
    scope: rules.scope ?? (options.changes ? "write" : "read"),
    wholeAccount: rules.wholeAccount,
  };
}

/**
 * Lets the caller through or throws the refusal: 401 when a signed-in caller is needed and there is
 * none, 403 `Do not have permission` when the role lacks the permission or the credentials the scope.
 */
export function admit(caller: Caller | null, admission: Admission & { signedIn: true }): Caller;
export function admit(caller: Caller | null, admission: Admission): Caller | null;
export function admit(caller: Caller | null, admission: Admission): Caller | null {
  if (!caller) {
    if (admission.signedIn) throw unauthorized();
    return null;
  }
  if (admission.signedIn && admission.permission && !roleHasPermission(caller.role, admission.permission)) {
    throw noPermission();
  }
  if (!callerHasScope(caller, admission.scope)) throw noPermission();
  if (caller.modpackIds && admission.wholeAccount) throw noPermission();
  return caller;
}

const scopeText: Record<TokenScope, string> = {
  read: "A read-only API token may call it.",
  write: "An API token needs the `write` scope (a read-only token answers 403 `Do not have permission`).",
  report: "An API token needs the `report` or the `write` scope (403 `Do not have permission` otherwise).",
};

/**
 * The admission in words, for an operation's description: who may call, the resource rule when
 * there is one, and what API tokens may do (left out when the operation reads no credentials).
 */
export function admissionText(admission: Admission, options: { resourceRule?: string; readsCredentials: boolean }) {
  const who = !admission.signedIn
    ? "Public: no credentials needed."
    : admission.permission
      ? `Requires a signed-in caller (session cookie or Bearer token) whose role holds \`${admission.permission}\`.`
      : "Requires a signed-in caller (session cookie or Bearer token).";
  const tokens = options.readsCredentials
    ? [
        scopeText[admission.scope],
        ...(admission.wholeAccount ? ["A token limited to modpacks may not (403 `Do not have permission`)."] : []),
      ]
    : [];
  return [who, ...(options.resourceRule ? [options.resourceRule] : []), ...tokens].join(" ");
}
