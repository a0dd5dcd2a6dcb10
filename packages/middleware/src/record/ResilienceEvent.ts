import type { Classification } from '../classify/Classification.js';
import type { BreakerSnapshot, BreakerState } from '../decide/BreakerState.js';
import type { Decision, DecisionKind } from '../decide/Decision.js';

/** Identifies a logical call in every event it produces. */
export interface CallRef {
  /** Unique within the process. */
  readonly callId: number;
  readonly endpoint: string;
  readonly operation: string;
  /** Low-cardinality telemetry attributes given by the caller or an edge (`mcp.resilience.server`, `gen_ai.tool.name`...). */
  readonly attributes: Readonly<Record<string, string>>;
}

export type CallOutcome = 'success' | 'failure' | 'rejected';

export interface CallStartedEvent extends CallRef {
  readonly type: 'call_started';
  readonly time: number;
}

export interface AttemptStartedEvent extends CallRef {
  readonly type: 'attempt_started';
  readonly time: number;
  /** 1-based; attempts 2..N are retries. */
  readonly attempt: number;
  /**
   * A carrier the recorder may fill with trace-context entries (W3C `traceparent`, `tracestate`); the
   * attempt's function receives it as `traceContext`, so an edge can propagate it (MCP `params._meta`).
   */
  readonly traceContext: Record<string, string>;
}

export interface AttemptFinishedEvent extends CallRef {
  readonly type: 'attempt_finished';
  readonly time: number;
  readonly attempt: number;
  readonly durationMs: number;
  readonly outcome: 'success' | 'failure';
  /** Present on failure. */
  readonly classification?: Classification;
}

/** A failed attempt, classified, with what the loop decided to do about it. */
export interface FailureClassifiedEvent extends CallRef {
  readonly type: 'failure_classified';
  readonly time: number;
  readonly attempt: number;
  readonly classification: Classification;
  readonly decision: DecisionKind;
  /** The full decision (delay, give-up reason). */
  readonly detail: Decision;
  /** Planned delay before the next attempt, 0 when none. */
  readonly delayMs: number;
}

export interface RetryScheduledEvent extends CallRef {
  readonly type: 'retry_scheduled';
  readonly time: number;
  /** The attempt that will run after the delay. */
  readonly attempt: number;
  readonly delayMs: number;
  /** The failure that triggered the retry. */
  readonly classification: Classification;
}

export interface BudgetRefusedEvent extends CallRef {
  readonly type: 'budget_refused';
  readonly time: number;
  /** The attempt that was refused. */
  readonly attempt: number;
  readonly classification: Classification;
}

export interface CallFinishedEvent extends CallRef {
  readonly type: 'call_finished';
  readonly time: number;
  readonly durationMs: number;
  readonly outcome: CallOutcome;
  readonly attempts: number;
  /** The last failure's classification (absent on success). */
  readonly classification?: Classification;
  /** Retries (attempts 2..N) that failed, and the time they took including the backoff waits before them. */
  readonly wastedRetries: number;
  readonly wastedTimeMs: number;
  /** Time the call spent waiting at its endpoint's breaker gate, in total (0 or absent when it never waited). */
  readonly breakerWaitMs?: number;
  /** Why the call stopped (a `ResilienceError`'s `reason`), absent on success. */
  readonly reason?: string;
}

/** How a wait at a breaker's gate ended. */
export type BreakerWaitOutcome = 'released' | 'timeout' | 'aborted' | 'shed';

/** A call met an open (or full half-open) breaker and waits for its verdict, sending nothing. */
export interface BreakerWaitStartedEvent extends CallRef {
  readonly type: 'breaker_wait_started';
  readonly time: number;
  /** The attempt that waits (1 = the call's first). */
  readonly attempt: number;
  /** Telemetry attributes of the endpoint (its breaker). */
  readonly endpointAttributes: Readonly<Record<string, string>>;
  /** Calls waiting at this gate, this one included. */
  readonly waiting: number;
}

/**
 * A wait at a breaker's gate ended: `released` (the attempt goes), `timeout` (the call's deadline or wait limit
 * came first, or the next probe was going to come too late), `aborted` (the caller's signal), or `shed` (the
 * queue was full: the call did not wait at all, `durationMs` 0, and no `breaker_wait_started` came before).
 */
export interface BreakerWaitFinishedEvent extends CallRef {
  readonly type: 'breaker_wait_finished';
  readonly time: number;
  readonly attempt: number;
  readonly durationMs: number;
  readonly outcome: BreakerWaitOutcome;
  readonly endpointAttributes: Readonly<Record<string, string>>;
}

export interface BreakerTransitionEvent {
  readonly type: 'breaker_transition';
  readonly time: number;
  readonly endpoint: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly from: BreakerState;
  readonly to: BreakerState;
  /** Why: `consecutive_failures`, `failure_rate`, `probe_failed`, `probe_succeeded`, `break_elapsed`. */
  readonly reason: string;
  /** The call whose outcome caused it; absent for timer-driven transitions. */
  readonly callId?: number;
}

/**
 * Sent once when a recorder is attached to a resilience instance, so that a recorder can read live state
 * (the breaker gauge) without holding the instance.
 */
export interface RecorderAttachedEvent {
  readonly type: 'recorder_attached';
  readonly breakers: () => readonly BreakerSnapshot[];
}

/**
 * A repeat of a `tools/call` that failed for good a moment ago (same server, tool and arguments), answered from
 * the negative cache of `withResilience` without a request: a retry the model made that could not succeed.
 */
export interface ModelRetryAvoidedEvent {
  readonly type: 'model_retry_avoided';
  readonly time: number;
  readonly endpoint: string;
  readonly operation: string;
  /** The call's attributes (`mcp.resilience.server`, `mcp.method.name`, `gen_ai.tool.name`...). */
  readonly attributes: Readonly<Record<string, string>>;
  /** The original failure's classification. */
  readonly classification: Classification;
  /** The duration of the original failed call: the time this repeat did not spend. */
  readonly savedMs: number;
  /** The attempts of the original failed call: the requests this repeat did not send. */
  readonly savedAttempts: number;
}

/** A `tools/call` that failed on its server (breaker open, retryable failure) was sent to a fallback server. */
export interface FallbackEvent {
  readonly type: 'fallback';
  readonly time: number;
  readonly durationMs: number;
  readonly operation: string;
  /** The call's attributes on the primary server (`mcp.resilience.server` is the primary). */
  readonly attributes: Readonly<Record<string, string>>;
  /** The fallback server's name. */
  readonly target: string;
  /** `success` when the fallback answered (a tool result), `failure` when it failed too. */
  readonly outcome: 'success' | 'failure';
  /** Why the primary failed. */
  readonly classification: Classification;
}

export type ResilienceEvent =
  | CallStartedEvent
  | AttemptStartedEvent
  | AttemptFinishedEvent
  | FailureClassifiedEvent
  | RetryScheduledEvent
  | BudgetRefusedEvent
  | CallFinishedEvent
  | BreakerTransitionEvent
  | RecorderAttachedEvent
  | ModelRetryAvoidedEvent
  | FallbackEvent
  | ShadowClassifiedEvent
  | BreakerWaitStartedEvent
  | BreakerWaitFinishedEvent
  | HealthStoreEvent
  | FleetDecisionEvent;

export type ResilienceEventType = ResilienceEvent['type'];

/**
 * The shadow classifier's verdict on a failed attempt (option `shadowRules`), sent right after that attempt's
 * `attempt_finished`. It acts on nothing: the loop followed `classification`.
 */
export interface ShadowClassifiedEvent extends CallRef {
  readonly type: 'shadow_classified';
  readonly time: number;
  readonly attempt: number;
  /** What the acting classifier said. */
  readonly classification: Classification;
  /** What the shadow said. */
  readonly shadow: Classification;
  /** Same class and type. */
  readonly agrees: boolean;
}

/**
 * The shared health store (option `healthStore`) became unreachable (the process goes on with its local
 * health: a fallback) or reachable again (it catches up), or held data this version cannot read (ignored).
 */
export interface HealthStoreEvent {
  readonly type: 'health_store';
  readonly time: number;
  readonly kind: 'unreachable' | 'reachable' | 'unreadable';
  /** What went wrong (redacted of nothing: store errors carry no call data). */
  readonly problem?: string;
}

/** What a replica decided from the fleet's shared health. */
export type FleetDecision =
  /** Another replica's open verdict was adopted: this replica sends nothing until the fleet's probe. */
  | 'adopted_open'
  /** Another replica's probe succeeded: this replica's breaker closed. */
  | 'adopted_closed'
  /** Another replica's `Retry-After` holds this one's calls. */
  | 'adopted_hold'
  /** This replica took the fleet's probe lease: its call is the fleet's probe. */
  | 'probe_owned'
  /** Another replica holds the probe lease: this one waits for its verdict. */
  | 'probe_elsewhere';

export interface FleetDecisionEvent {
  readonly type: 'fleet_decision';
  readonly time: number;
  readonly endpoint: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly decision: FleetDecision;
  /** For adopted verdicts: from the verdict's time at its replica to its adoption here (clock skew included). */
  readonly lagMs?: number;
}
