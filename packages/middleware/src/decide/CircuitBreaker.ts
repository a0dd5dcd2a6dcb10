import type { Clock } from '../Clock.js';
import type { BreakerSnapshot, BreakerState } from './BreakerState.js';
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

/** Each state carries only its own data. */
type Inner =
  | { readonly state: 'closed'; consecutiveFailures: number }
  | { readonly state: 'open'; readonly until: number }
  | { readonly state: 'half_open'; inFlight: number; successes: number; probeDeadline: number };

/**
 * One endpoint's breaker. Closed: counts failures (in a row, and as a rate over a sliding window with a
 * minimum of calls). Open: rejects, for a break that doubles on each re-open up to a cap, with jitter; a timer
 * half-opens it when the break ends. Half-open: admits a bounded number of probes, each with a time limit; as
 * many successes close it, one failure re-opens it. Neutral outcomes (non-retryable errors, tool results)
 * count neither way.
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
  ) {
    this.since = clock.now();
    this.window = new SlidingWindow(options.breakerWindowMs);
  }

  get state(): BreakerState {
    return this.inner.state;
  }

  admit(now: number): Admission {
    const inner = this.inner;
    if (inner.state === 'open') {
      if (now < inner.until) return { admitted: false, retryAfterMs: inner.until - now };
      this.halfOpen(now, 'break_elapsed');
      return this.admit(now);
    }
    if (inner.state === 'half_open') {
      if (inner.inFlight >= this.options.breakerHalfOpenProbes) {
        return { admitted: false, retryAfterMs: Math.max(0, inner.probeDeadline - now) };
      }
      inner.inFlight++;
      inner.probeDeadline = now + this.options.breakerProbeTimeoutMs;
      return PROBE;
    }
    return ADMITTED;
  }

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

  onFailure(now: number, probe: boolean, callId?: number): void {
    const inner = this.inner;
    if (inner.state === 'half_open' && probe) {
      inner.inFlight--;
      this.reopenCount++;
      this.open(now, 'probe_failed', callId);
      return;
    }
    if (inner.state !== 'closed') return;
    inner.consecutiveFailures++;
    this.window.add(now, 1, 1);
    if (inner.consecutiveFailures >= this.options.breakerConsecutiveFailures) {
      this.open(now, 'consecutive_failures', callId);
      return;
    }
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
    };
  }

  /** Stops the background timer (the breaker is being dropped). */
  dispose(): void {
    this.timer?.abort();
  }

  private open(now: number, reason: string, callId?: number): void {
    const o = this.options;
    const base = Math.min(o.breakerMaxBreakMs, o.breakerBreakMs * 2 ** this.reopenCount);
    const breakMs = Math.max(1, base * (1 + o.breakerJitter * (2 * this.clock.random() - 1)));
    this.moveTo({ state: 'open', until: now + breakMs }, now, reason, callId);
    const timer = new AbortController();
    this.timer = timer;
    this.clock.sleep(breakMs, timer.signal, { unref: true }).then(
      () => {
        if (this.timer === timer && this.inner.state === 'open')
          this.halfOpen(this.clock.now(), 'break_elapsed');
      },
      () => {},
    );
  }

  private halfOpen(now: number, reason: string): void {
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
