import type { Clock } from '../Clock.js';
import type { ClassificationRule } from '../classify/ClassificationRule.js';
import type { Jitter } from '../decide/backoffDelay.js';
import type { ExperimentOptions } from '../experiment/ExperimentOptions.js';
import type { HealthStore } from '../health/store/HealthStore.js';
import type { FlatResilienceOptions } from '../options.js';
import type { Recorder } from '../record/Recorder.js';

/** `retry.backoff`: the delay before each retry. */
export interface BackoffOptions {
  /** First backoff delay. Default 100. */
  readonly baseMs?: number;
  /** Growth of the delay per retry. Default 2. */
  readonly factor?: number;
  /** Longest delay. Default 30 000. */
  readonly maxMs?: number;
  /** `full`: random in [0, d]; `decorrelated`: random in [base, 3 × previous]; `none`: d. Default `'full'`. */
  readonly jitter?: Jitter;
  /** Learn per endpoint how long its failures take to recover, and wait at least that long. Default true. */
  readonly adaptive?: boolean;
  /** Recovery durations remembered per endpoint. Default 20. */
  readonly historySize?: number;
}

/** `retry.retryAfter`: how a server's `Retry-After` is honoured. */
export interface RetryAfterOptions {
  /** Added to a `Retry-After`, so the retry does not arrive a hair early. Default 100. */
  readonly marginMs?: number;
  /** A longer `Retry-After` is not waited for: the call fails at once. Default 60 000. */
  readonly maxMs?: number;
}

export interface RetryOptions {
  /** Attempts per call in total, the first one included. Default 6. */
  readonly maxAttempts?: number;
  readonly backoff?: BackoffOptions;
  readonly retryAfter?: RetryAfterOptions;
}

export interface DeadlineOptions {
  /** Deadline of a whole call (all attempts and waits). Default: none. */
  readonly callMs?: number;
  /** Time limit of one attempt. Default: none beyond the call's deadline. */
  readonly attemptMs?: number;
}

/** The retry budget per endpoint: retries stop when an endpoint fails broadly. */
export interface BudgetOptions {
  /** Retries allowed as a share of the endpoint's calls in the window. Default 0.2. */
  readonly ratio?: number;
  /** Retries per second always allowed, so a quiet endpoint can still retry. Default 1. */
  readonly minPerSecond?: number;
  /** The budget's sliding window. Default 10 000. */
  readonly windowMs?: number;
}

/** The circuit breaker per endpoint: when it opens, and how it probes. */
export interface BreakerOptions {
  /** Failures in a row that open it. Default 5. */
  readonly consecutiveFailures?: number;
  /** Failure rate over the window that opens it. Default 0.5. */
  readonly failureRate?: number;
  /** The sliding window of the failure rate. Default 30 000. */
  readonly windowMs?: number;
  /** Calls in the window before the failure rate counts. Default 10. */
  readonly minimumCalls?: number;
  /** Open time before the first probe; doubles per failed probe (or learned, within [breakMs, maxBreakMs]). Default 500. */
  readonly breakMs?: number;
  /** Longest time between two probes while calls wait. Default 2 000 (at least `breakMs` when only that is given). */
  readonly maxBreakMs?: number;
  /** Longest time between two probes while no call waits (grows with the outage's age). Default 30 000. */
  readonly idleMaxBreakMs?: number;
  /** Random spread of a break, as a share of it (0.1 = ±10%). Default 0.2. */
  readonly jitter?: number;
  /** Probes admitted at once while half-open; as many successes close it. Default 1. */
  readonly halfOpenProbes?: number;
  /** Time limit of a probe. Default 10 000. */
  readonly probeTimeoutMs?: number;
}

/** The gate at an open breaker: who waits for its verdict, how long, and how many. */
export interface GateOptions {
  /** Wait at an open breaker when recovery before the call's limit is likely; `false`: fail fast. Default true. */
  readonly wait?: boolean;
  /** The least chance of recovery within the call's limit at which a call waits. Default 0.25. */
  readonly waitOdds?: number;
  /** The least chance, judged again while it waits, at which a waiting call keeps waiting. Default 0.01. */
  readonly stayOdds?: number;
  /** The limit of a call without a deadline, from its start, for waits at a breaker. Default 60 000. */
  readonly waitLimitMs?: number;
  /** Longest hold of a retry while the endpoint looks down, breaker closed. Default `breaker.maxBreakMs`. */
  readonly holdMaxMs?: number;
  /** Calls waiting at most per endpoint; beyond, shed at once (`shed`). Default 1 000. */
  readonly maxWaiting?: number;
}

/** Endpoint health shared with the other replicas of a fleet. */
export interface FleetOptions {
  /** The shared store (`createRedisHealthStore` from `/redis`, or any `HealthStore`). Default: none. */
  readonly store?: HealthStore;
  /** This process's id in the store. Default: a random UUID. */
  readonly replicaId?: string;
  /** Period of the catch-up read of the store. Default 1 000. */
  readonly syncIntervalMs?: number;
  /** Lease of the fleet's probe. Default: the probe's time limit + 1 s. */
  readonly probeLeaseMs?: number;
  /** How long a new endpoint's first call waits at most for the fleet's health of it. Default 250. */
  readonly firstReadWaitMs?: number;
}

/** The options of `createResilience`, grouped by policy; all optional (`defaults` holds every default). */
export interface GroupedResilienceOptions {
  readonly retry?: RetryOptions;
  readonly deadline?: DeadlineOptions;
  readonly budget?: BudgetOptions;
  readonly breaker?: BreakerOptions;
  readonly gate?: GateOptions;
  readonly fleet?: FleetOptions;
  /** Canary and shadow: variants of these options, a traffic split, a shadow classifier. */
  readonly experiment?: ExperimentOptions;
  /** Endpoints tracked at most (breaker, budget, history); the least recently used is dropped beyond. Default 10 000. */
  readonly maxEndpoints?: number;
  /** Classification rules that run before the built-in ones. */
  readonly rules?: readonly ClassificationRule[];
  /** Time, sleep and randomness. Default `realClock`. */
  readonly clock?: Clock;
  /** The telemetry port. Default `noopRecorder`. */
  readonly recorder?: Recorder;
}

/** The grouped options, plus the flat names of the first versions, still accepted for now (README: "Flat names"). */
export interface ResilienceOptions extends GroupedResilienceOptions, FlatResilienceOptions {}
