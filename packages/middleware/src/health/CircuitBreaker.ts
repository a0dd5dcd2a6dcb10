import type { Clock } from '../Clock.js';
import type { BreakerSnapshot, BreakerState } from '../decide/BreakerState.js';
import { probeDelay } from '../decide/probeDelay.js';
import { SlidingWindow } from './SlidingWindow.js';

export interface CircuitBreakerOptions {
  readonly breakerConsecutiveFailures: number;
  readonly breakerFailureRate: number;
  readonly breakerWindowMs: number;
  readonly breakerMinimumCalls: number;
  readonly breakerBreakMs: number;
  readonly breakerMaxBreakMs: number;
  readonly breakerJitter: number;
  readonly breakerHalfOpenProbes: number;
  readonly breakerProbeTimeoutMs: number;
}

export interface Transition {
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: string;
  readonly time: number;
  readonly callId?: number;
}

/** Whether an attempt may go: as a normal call, as a half-open probe, or not at all. */
export type Admission =
  | { readonly admitted: true; readonly probe: boolean }
  | { readonly admitted: false; readonly retryAfterMs: number };

const ADMITTED: Admission = { admitted: true, probe: false };
const PROBE: Admission = { admitted: true, probe: true };
const noRecovery = () => 0;

/** Each state carries only its own data. */
type Inner =
  | { readonly state: 'closed'; consecutiveFailures: number }
  | { readonly state: 'open'; readonly until: number }
  | { readonly state: 'half_open'; inFlight: number; successes: number; probeDeadline: number };

/**
 * One endpoint's breaker. Closed: counts failed attempts in a row (from any call: when every attempt fails,
 * the endpoint is down) and the failure rate of calls over a sliding window with a minimum of calls. Open:
 * admits nothing until its next probe, after a short delay that doubles per failed probe up to a cap, or that
 * the endpoint's past outages predict (`probeDelay`); a timer half-opens it then. Half-open: admits a bounded
 * number of probes, each with a time limit; as many successes close it, one failure re-opens it. Neutral
 * outcomes (non-retryable errors, tool results, rate limits) count neither way.
 */
export class CircuitBreaker {
  private inner: Inner = { state: 'closed', consecutiveFailures: 0 };
  private since: number;
  private reopenCount = 0;
  private readonly window: SlidingWindow;
  private timer: AbortController | undefined;

  constructor(
    readonly endpoint: string,
    readonly attributes: Readonly<Record<string, string>>,
    private readonly options: CircuitBreakerOptions,
    private readonly clock: Clock,
    private readonly onTransition: (transition: Transition) => void,
    /** How long, from now, the endpoint's past outages say the running one lasts (0: no idea). */
    private readonly expectedRecoveryMs: (now: number) => number = noRecovery,
  ) {
    this.since = clock.now();
    this.window = new SlidingWindow(options.breakerWindowMs);
  }

  get state(): BreakerState {
    return this.inner.state;
  }

  /** The call whose attempt failed last (while closed). */
  lastFailedCall: number | undefined;

  /**
   * Asked when an open breaker's break is over, before it half-opens: `true` lets it half-open now; `false`
   * keeps it open (the fleet's probe lease decides: the guard half-opens it, `halfOpenNow`, or extends the
   * break, `extendOpen`, when the lease's answer comes). `timer`: asked by the break's timer, not by a call.
   */
  probeGuard: ((now: number, timer: boolean) => boolean) | undefined;

  /** The current verdict was adopted from the fleet (another replica's), not reached here. */
  get fleetVerdict(): boolean {
    return this.adopted;
  }
  private adopted = false;

  /** Failed attempts in a row while closed (0 otherwise). */
  get consecutiveFailures(): number {
    return this.inner.state === 'closed' ? this.inner.consecutiveFailures : 0;
  }

  /** Epoch milliseconds of the next probe while open, else undefined. */
  get openUntil(): number | undefined {
    return this.inner.state === 'open' ? this.inner.until : undefined;
  }

  admit(now: number): Admission {
    const inner = this.inner;
    if (inner.state === 'closed') return ADMITTED;
    if (inner.state === 'open') {
      if (now < inner.until) return { admitted: false, retryAfterMs: inner.until - now };
      if (this.probeGuard && !this.probeGuard(now, false)) {
        return { admitted: false, retryAfterMs: Math.max(0, (this.openUntil ?? now) - now) };
      }
      this.halfOpen(now, 'break_elapsed');
      return this.admit(now);
    }
    if (inner.inFlight >= this.options.breakerHalfOpenProbes) {
      return { admitted: false, retryAfterMs: Math.max(0, inner.probeDeadline - now) };
    }
    inner.inFlight++;
    inner.probeDeadline = now + this.options.breakerProbeTimeoutMs;
    return PROBE;
  }

  /** A successful attempt. */
  onSuccess(now: number, probe: boolean, callId?: number): void {
    const inner = this.inner;
    if (inner.state === 'half_open' && probe) {
      inner.inFlight--;
      if (++inner.successes >= this.options.breakerHalfOpenProbes) {
        this.reopenCount = 0;
        this.moveTo({ state: 'closed', consecutiveFailures: 0 }, now, 'probe_succeeded', callId);
      }
      return;
    }
    if (inner.state === 'closed') {
      inner.consecutiveFailures = 0;
      this.window.add(now, 1, 0);
    }
  }

  /**
   * A failed attempt that says the endpoint is unhealthy: a probe re-opens the breaker; otherwise it counts
   * towards the failures in a row, which open it at `breakerConsecutiveFailures`.
   */
  onAttemptFailure(now: number, probe: boolean, callId?: number): void {
    const inner = this.inner;
    if (inner.state === 'half_open' && probe) {
      inner.inFlight--;
      this.reopenCount++;
      this.open(now, 'probe_failed', callId);
      return;
    }
    if (inner.state !== 'closed') return;
    this.lastFailedCall = callId;
    if (++inner.consecutiveFailures >= this.options.breakerConsecutiveFailures) {
      this.open(now, 'consecutive_failures', callId);
    }
  }

  /**
   * A call that failed for good for a reason that says the endpoint is unhealthy: counts once for the failure
   * rate, whatever its retries (calls that get through a blip on retry do not count).
   */
  onCallFailure(now: number, callId?: number): void {
    if (this.inner.state !== 'closed') return;
    this.window.add(now, 1, 1);
    const { a: calls, b: failures } = this.window.totals(now);
    if (calls >= this.options.breakerMinimumCalls && failures / calls >= this.options.breakerFailureRate) {
      this.open(now, 'failure_rate', callId);
    }
  }

  /** An outcome that says nothing about health: frees a probe slot and changes nothing else. */
  onNeutral(probe: boolean): void {
    if (this.inner.state === 'half_open' && probe) this.inner.inFlight--;
  }

  snapshot(now: number): BreakerSnapshot {
    const inner = this.inner;
    const { a, b } = this.window.totals(now);
    return {
      endpoint: this.endpoint,
      state: inner.state,
      since: this.since,
      consecutiveFailures: inner.state === 'closed' ? inner.consecutiveFailures : 0,
      windowCalls: a,
      windowFailures: b,
      ...(inner.state === 'open' ? { openUntil: inner.until } : {}),
      reopenCount: this.reopenCount,
      attributes: this.attributes,
      ...(this.adopted ? { fleet: true } : {}),
    };
  }

  /** Stops the background timer (the breaker is being dropped). */
  dispose(): void {
    this.timer?.abort();
  }

  /**
   * Another replica's verdict: open until `until` (reason `fleet_open`). Taken while closed, or while open until
   * earlier (the break is extended without a transition); ignored while half-open (a probe is out).
   */
  adoptOpen(until: number, now: number): void {
    const inner = this.inner;
    if (inner.state === 'half_open') return;
    if (inner.state === 'open') {
      if (until > inner.until) this.extendOpen(until);
      return;
    }
    this.adopted = true;
    this.moveTo({ state: 'open', until }, now, 'fleet_open');
    this.armBreak(Math.max(0, until - now));
  }

  /** Another replica's probe succeeded: an open breaker closes (reason `fleet_closed`). */
  adoptClosed(now: number): void {
    const inner = this.inner;
    if (inner.state === 'closed' || (inner.state === 'half_open' && inner.inFlight > 0)) return;
    this.reopenCount = 0;
    this.adopted = true;
    this.moveTo({ state: 'closed', consecutiveFailures: 0 }, now, 'fleet_closed');
  }

  /** Keeps an open breaker open until `until` (another replica holds the probe), without a transition. */
  extendOpen(until: number): void {
    const inner = this.inner;
    if (inner.state !== 'open' || until <= inner.until) return;
    this.inner = { state: 'open', until };
    this.armBreak(Math.max(0, until - this.clock.now()));
  }

  /** The fleet's probe lease is this replica's: an open breaker half-opens now. */
  halfOpenNow(): void {
    if (this.inner.state === 'open') this.halfOpen(this.clock.now(), 'break_elapsed');
  }

  private open(now: number, reason: string, callId?: number): void {
    const breakMs = probeDelay({
      ...this.options,
      failedProbes: this.reopenCount,
      expectedRecoveryMs: this.expectedRecoveryMs(now),
      random: () => this.clock.random(),
    });
    this.adopted = false;
    this.moveTo({ state: 'open', until: now + breakMs }, now, reason, callId);
    this.armBreak(breakMs);
  }

  /** (Re)arms the one timer that ends the break. */
  private armBreak(breakMs: number): void {
    this.timer?.abort();
    const timer = new AbortController();
    this.timer = timer;
    this.clock.sleep(breakMs, timer.signal, { unref: true }).then(
      () => {
        if (this.timer !== timer || this.inner.state !== 'open') return;
        const now = this.clock.now();
        if (!this.probeGuard || this.probeGuard(now, true)) this.halfOpen(now, 'break_elapsed');
      },
      () => {},
    );
  }

  private halfOpen(now: number, reason: string): void {
    this.adopted = false;
    this.moveTo({ state: 'half_open', inFlight: 0, successes: 0, probeDeadline: now }, now, reason);
  }

  private moveTo(next: Inner, now: number, reason: string, callId?: number): void {
    const from = this.inner.state;
    if (next.state !== 'open') {
      this.timer?.abort();
      this.timer = undefined;
    }
    if (next.state === 'closed') this.window.reset();
    this.inner = next;
    this.since = now;
    this.onTransition({
      from,
      to: next.state,
      reason,
      time: now,
      ...(callId === undefined ? {} : { callId }),
    });
  }
}
