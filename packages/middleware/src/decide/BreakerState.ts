export const BREAKER_STATES = ['closed', 'open', 'half_open'] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];

/** A breaker as seen from outside: what `resilience.breakers()` returns and what the state gauge reads. */
export interface BreakerSnapshot {
  /** The endpoint key. */
  readonly endpoint: string;
  readonly state: BreakerState;
  /** Epoch milliseconds of the last transition (or of creation). */
  readonly since: number;
  /** Failures in a row that counted for the breaker. */
  readonly consecutiveFailures: number;
  /** Calls and failures counted in the sliding window. */
  readonly windowCalls: number;
  readonly windowFailures: number;
  /** When open: epoch milliseconds at which it half-opens. */
  readonly openUntil?: number;
  /** While open or half-open: epoch milliseconds at which the breaker first opened in this outage. */
  readonly outageSince?: number;
  /** How many times it re-opened in a row (the break duration doubles each time). */
  readonly reopenCount: number;
  /** Telemetry attributes the endpoint was created with (for example `mcp.resilience.server`, `gen_ai.tool.name`). */
  readonly attributes: Readonly<Record<string, string>>;
  /** The state was adopted from another replica's verdict through the shared health store. */
  readonly fleet?: boolean;
  /** Calls waiting at the breaker's gate now (absent from breakers that have no gate). */
  readonly waiting?: number;
}
