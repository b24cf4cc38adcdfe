import type { Readiness } from "./schemas/health.js";
import type { SessionInfo } from "./schemas/session.js";
import type { ApiToken, CreatedToken, CreateTokenInput } from "./schemas/token.js";
import type { Caller } from "./trpc.js";

/**
 * What the server implements: one port per resource. Procedures call these with the caller
 * and their checked input; resource rules (owner, member, public) live behind them.
 */
export interface Services {
  health: {
    readiness(): Promise<Readiness>;
  };
  auth: {
    session(caller: Caller): Promise<SessionInfo>;
    createToken(caller: Caller, input: CreateTokenInput): Promise<CreatedToken>;
    listTokens(caller: Caller): Promise<{ tokens: ApiToken[] }>;
    revokeToken(caller: Caller, id: string): Promise<void>;
  };
}
