import type { Clock } from '../Clock.js';
import type { Classification } from '../classify/Classification.js';
import type { BreakerSnapshot, BreakerState } from '../decide/BreakerState.js';
import { oddsFallBelowMs } from '../decide/oddsFallBelowMs.js';
import { type RecoveryOddsInput, recoveryOdds } from '../decide/recoveryOdds.js';
import { BreakerGate, type BreakerGateOptions, type GateRequest, type GateVerdict } from './BreakerGate.js';
import {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type LoneCall,
  type Transition,
} from './CircuitBreaker.js';
import { EndpointHistory } from './EndpointHistory.js';
import type { Admitted } from './GateVerdict.js';
import { RetryBudget, type RetryBudgetOptions } from './RetryBudget.js';

export type EndpointOptions = CircuitBreakerOptions &
  BreakerGateOptions &
  RetryBudgetOptions & {
    readonly adaptiveHistorySize: number;
    readonly adaptiveBackoff: boolean;
    readonly breakerWaitOdds: number;
    readonly breakerStayOdds: number;
  };

/** The odds from which a call without a limit of its own keeps waiting: recovery is likely. */
export const LIKELY = 0.5;

/** Whether a failure says the endpoint is unhealthy (for its breaker and its recovery history). */
export const countsForHealth = (c: Classification) => c.class !== 'non_retryable' && c.healthNeutral !== true;

/** What a store may read and set to share an endpoint's health (see `Endpoint.health` and `Endpoint.adopt`). */
export interface EndpointHealth {
  /** Epoch milliseconds before which the endpoint asked not to be called (`Retry-After`); 0: none. */
  readonly retryAfterUntil: number;
  /** How long its past outages lasted (oldest first). */
  readonly pastOutagesMs: readonly number[];
  /** While its breaker is open: until when (the next probe), and since when the outage runs. */
  readonly openUntil?: number;
  readonly outageSince?: number;
}

/**
 * Everything kept per endpoint key (its breaker and the gate in front of it, its retry budget, its history, the
 * `Retry-After` it announced), and the protocol by which calls tell it what happened: `attemptSucceeded`,
 * `attemptFailed`, `callFailed`. The order of those updates is the endpoint's business, not the call's.
 */
export class Endpoint {
  readonly breaker: CircuitBreaker;
  readonly gate: BreakerGate;
  private readonly budget: RetryBudget;
  private readonly history: EndpointHistory;
  private retryAfterUntil = 0;
  private used = 0;
  /** Told when this replica learns a new `Retry-After` hold (the fleet shares it). */
  onHold: ((until: number) => void) | undefined;
  /**
   * Told of each attempt's outcome while the breaker is closed: `true` after an unhealthy failure it counted (and
   * stayed closed), `false` after a success (the fleet shares its failures in a row).
   */
  onStreak: ((failed: boolean) => void) | undefined;
  /** The first read of the fleet's health for this endpoint, while it runs (the first call waits for it, bounded). */
  fleetRead: Promise<void> | undefined;

  constructor(
    readonly key: string,
    attributes: Readonly<Record<string, string>>,
    private readonly options: EndpointOptions,
    clock: Clock,
    onTransition: (endpoint: Endpoint, transition: Transition) => void,
  ) {
    const history = new EndpointHistory(options.adaptiveHistorySize);
    this.history = history;
    this.breaker = new CircuitBreaker(
      key,
      attributes,
      options,
      clock,
      (t) => {
        onTransition(this, t);
        this.gate.onTransition(t);
      },
      {
        expectedRecoveryMs: (now) => (options.adaptiveBackoff ? history.expectedRecoveryMs(now) : 0),
        waiters: () => this.gate.waiting,
        outageStart: () => this.outageStart(),
      },
    );
    this.gate = new BreakerGate(this.breaker, options, clock, {
      likely: (now, limitAt, defaultLimit) => this.recoveryLikely(now, limitAt, defaultLimit),
      leaveAt: (now, limitAt, defaultLimit) => this.leaveAt(now, limitAt, defaultLimit),
    });
    this.budget = new RetryBudget(options);
  }

  /** The telemetry attributes the endpoint was created with. */
  get attributes(): Readonly<Record<string, string>> {
    return this.breaker.attributes;
  }

  /** Its breaker's state. */
  get state(): BreakerState {
    return this.breaker.state;
  }

  /** Calls waiting at its gate now. */
  get waiting(): number {
    return this.gate.waiting;
  }

  /** Its breaker as seen from outside, with the calls waiting at its gate. */
  snapshot(now: number): BreakerSnapshot {
    return { ...this.breaker.snapshot(now), waiting: this.gate.waiting };
  }

  /**
   * When the next probe comes if one more call (`lone`: when it started, its limit) waits for it; undefined when the
   * breaker is not open.
   */
  probeIfWaiting(now: number, lone?: LoneCall): number | undefined {
    return this.breaker.probeIfWaiting(now, this.gate.waiting + 1, lone);
  }

  /** A tick of the registry, for least-recently-used eviction. */
  get lastUsed(): number {
    return this.used;
  }

  touch(tick: number): void {
    this.used = tick;
  }

  /** A call started. */
  callStarted(now: number): void {
    this.budget.onCall(now);
  }

  /** The gate's verdict for an attempt. */
  pass(request: GateRequest): GateVerdict | Promise<GateVerdict> {
    return this.gate.pass(request);
  }

  /** How long, from now, the endpoint asked not to be called (`Retry-After`); 0 when it did not. */
  retryAfterMs(now: number): number {
    return Math.max(0, this.retryAfterUntil - now);
  }

  /** How long, from now, its breaker stays open; 0 when it admits. */
  breakerOpenMs(now: number): number {
    const until = this.breaker.openUntil;
    return until === undefined ? 0 : Math.max(0, until - now);
  }

  /**
   * Whether recovery before `limitAt` is likely enough to start waiting for: `recoveryOdds` of this outage's age
   * and the endpoint's past outages, at least `breakerWaitOdds` for a call with a limit of its own (its caller
   * said how long it may take), at least `LIKELY` for a call with only the default limit.
   */
  recoveryLikely(now: number, limitAt: number, defaultLimit: boolean): boolean {
    const least = this.options.breakerWaitOdds;
    return recoveryOdds(this.oddsInput(now, limitAt)) >= (defaultLimit ? Math.max(LIKELY, least) : least);
  }

  /**
   * When a call waiting from `now` for a recovery by `limitAt` stops waiting: the moment its odds, judged again
   * as the outage ages and its time runs out (`oddsFallBelowMs`), fall below `breakerStayOdds` (below `LIKELY`
   * for a call with only the default limit); `limitAt` at the latest.
   */
  leaveAt(now: number, limitAt: number, defaultLimit: boolean): number {
    const stay = this.options.breakerStayOdds;
    const least = defaultLimit ? Math.max(LIKELY, stay) : stay;
    return now + oddsFallBelowMs(this.oddsInput(now, limitAt), least);
  }

  /** The odds' input: the outage began with its first unhealthy failure (the breaker opened later). */
  private oddsInput(now: number, limitAt: number): RecoveryOddsInput {
    const since = Math.min(this.history.streakStart ?? now, this.breaker.outageSince ?? now);
    return { outageAgeMs: now - since, withinMs: limitAt - now, pastOutagesMs: this.history.outages };
  }

  /** How long the running failure streak usually lasts from now (0: no idea, or `adaptiveBackoff` off). */
  expectedRecoveryMs(now: number): number {
    return this.options.adaptiveBackoff ? this.history.expectedRecoveryMs(now) : 0;
  }

  /** A successful attempt's usual duration (0: unknown, or `adaptiveBackoff` off). */
  expectedLatencyMs(): number {
    return this.options.adaptiveBackoff ? this.history.expectedLatencyMs() : 0;
  }

  /** Whether the retry budget allows a retry now. */
  canRetry(now: number): boolean {
    return this.budget.canRetry(now);
  }

  /** A retry was scheduled: it spends the budget. */
  retryScheduled(now: number): void {
    this.budget.spend(now);
  }

  /**
   * An admitted attempt succeeded: the breaker, the history (and the latency when `durationKnown`), the budget
   * (for a retry), the ramp or probe slot and the held retries learn it, in that order.
   */
  attemptSucceeded(verdict: Admitted, attempt: AttemptFacts, now: number, durationKnown: boolean): void {
    this.breaker.onSuccess(now, verdict.probe, attempt.callId);
    if (this.onStreak && !verdict.probe && this.breaker.state === 'closed') this.onStreak(false);
    this.history.onSuccess(now, attempt.start, durationKnown ? now - attempt.start : undefined);
    if (attempt.retry) this.budget.onRetrySuccess(now);
    if (verdict.probe || verdict.ramp) this.gate.onAttemptEnd(verdict, 'success');
    if (this.gate.holding) this.gate.onSuccess();
  }

  /**
   * An admitted attempt failed as `c`. A failure that says the endpoint is unhealthy starts (or continues) an
   * outage, then counts for the breaker, unless the ramp absorbs it (a released call while the window can still
   * shrink); a `Retry-After` is remembered. Returns whether it counted as unhealthy.
   */
  attemptFailed(verdict: Admitted, c: Classification, attempt: AttemptFacts, now: number): boolean {
    const unhealthy = countsForHealth(c);
    if (unhealthy) this.history.onFailure(now);
    const absorbed = verdict.ramp && this.gate.rampAbsorbsFailures;
    if (unhealthy && !absorbed) {
      const counted = this.breaker.state === 'closed';
      this.breaker.onAttemptFailure(now, verdict.probe, attempt.callId);
      if (counted && this.breaker.state === 'closed') this.onStreak?.(true);
    } else if (verdict.probe) this.breaker.onNeutral(true);
    if (verdict.probe || verdict.ramp) this.gate.onAttemptEnd(verdict, unhealthy ? 'failure' : 'neutral');
    if (
      c.type === 'rate_limited' &&
      c.retryAfterMs !== undefined &&
      now + c.retryAfterMs > this.retryAfterUntil
    ) {
      this.retryAfterUntil = now + c.retryAfterMs;
      this.onHold?.(this.retryAfterUntil);
    }
    return unhealthy;
  }

  /**
   * A call failed for good after an attempt (not stopped by the gate, its last attempt not a probe already
   * counted): when its failure says the endpoint is unhealthy, it counts once for the failure rate.
   */
  callFailed(c: Classification, callId: number, now: number): void {
    if (countsForHealth(c)) this.breaker.onCallFailure(now, callId);
  }

  /** What a store shares: the announced `Retry-After`, the past outages, an open breaker's verdict. */
  health(): EndpointHealth {
    const { openUntil, outageSince } = this.breaker;
    return {
      retryAfterUntil: this.retryAfterUntil,
      pastOutagesMs: this.history.outages,
      ...(openUntil === undefined ? {} : { openUntil }),
      ...(outageSince === undefined ? {} : { outageSince }),
    };
  }

  /**
   * Takes what a store shared: a later `Retry-After`, the past outages learned elsewhere, and an open verdict
   * (`CircuitBreaker.adoptOpen`: opens a closed breaker until then, or keeps an open one open that long).
   */
  adopt(health: Partial<EndpointHealth>, now: number): void {
    if (health.openUntil !== undefined) this.breaker.adoptOpen(now, health.openUntil, health.outageSince);
    if (health.retryAfterUntil !== undefined) {
      this.retryAfterUntil = Math.max(this.retryAfterUntil, health.retryAfterUntil);
    }
    if (health.pastOutagesMs !== undefined) this.history.adoptOutages(health.pastOutagesMs);
  }

  /** When the running outage began: its first unhealthy failure, or when the breaker opened; undefined when none runs. */
  outageStart(): number | undefined {
    const streak = this.history.streakStart;
    const opened = this.breaker.outageSince;
    if (streak === undefined) return opened;
    return opened === undefined ? streak : Math.min(streak, opened);
  }

  /** The fleet says the running outage began at `start`. */
  adoptOutageStart(start: number): void {
    this.history.adoptStreakStart(start);
  }

  /** The fleet saw an outage of `lengthMs` end (another replica's probe): no streak runs here any more. */
  adoptOutageEnd(lengthMs: number): void {
    this.history.adoptRecovery(lengthMs);
  }

  /** Stops the breaker's timer and fails the calls waiting at its gate (the endpoint is being dropped). */
  dispose(): void {
    this.breaker.dispose();
    this.gate.dispose();
  }
}

/** The attempt a call reports on. */
export interface AttemptFacts {
  readonly callId: number;
  /** When it was sent. */
  readonly start: number;
  /** Whether it is a retry (not the call's first attempt). */
  readonly retry: boolean;
}
