import type { Readiness } from "./schemas/health.js";

/**
 * What the server implements: one port per resource. Procedures call these with the caller
 * and their checked input; resource rules (owner, member, public) live behind them.
 */
export interface Services {
  health: {
    readiness(): Promise<Readiness>;
  };
}
