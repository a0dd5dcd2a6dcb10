import type { Clock } from '../Clock.js';
import type { BreakerSnapshot, BreakerState } from '../decide/BreakerState.js';
import { loneProbeAt } from '../decide/loneProbeAt.js';
import { probeDelay } from '../decide/probeDelay.js';
import { SlidingWindow } from './SlidingWindow.js';

export interface CircuitBreakerOptions {
  readonly breakerConsecutiveFailures: number;
  readonly breakerFailureRate: number;
  readonly breakerWindowMs: number;
  readonly breakerMinimumCalls: number;
  readonly breakerBreakMs: number;
  readonly breakerMaxBreakMs: number;
  readonly breakerIdleMaxBreakMs: number;
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
  | {
      readonly admitted: false;
      readonly retryAfterMs: number;
      /** The fleet is being asked for its probe lease: ask again once this settles (one store round trip). */
      readonly pending?: Promise<void>;
    };

const ADMITTED: Admission = { admitted: true, probe: false };
const PROBE: Admission = { admitted: true, probe: true };

/** A call waiting alone: when it started, and the last moment it can use a release. */
export interface LoneCall {
  readonly start: number;
  readonly limitAt: number;
  /** The call has no deadline of its own (its limit is `breakerWaitLimitMs`): only such a call is probed naively. */
  readonly defaultLimit: boolean;
}

/** What the breaker asks the rest of its endpoint when it schedules a probe. */
export interface BreakerHooks {
  /** How long, from now, the endpoint's past outages say the running one lasts (0: no idea). */
  expectedRecoveryMs(now: number): number;
  /** Calls waiting whose limits need a verdict (several keep probes soon, see `probeDelay`). */
  waiters(): number;
  /** When the running outage began (its first unhealthy failure); undefined: when the breaker first opened. */
  outageStart?(): number | undefined;
}

const noHooks: BreakerHooks = {
  expectedRecoveryMs: () => 0,
  waiters: () => 2,
};

/** Each state carries only its own data. */
type OpenInner = Extract<Inner, { state: 'open' }>;
type Inner =
  | { readonly state: 'closed'; consecutiveFailures: number }
  | { readonly state: 'open'; until: number; readonly soonAt: number; readonly loneAt: number }
  | { readonly state: 'half_open'; inFlight: number; successes: number; probeDeadline: number };

/**
 * One endpoint's breaker. Closed: counts failed attempts in a row (from any call: when every attempt fails,
 * the endpoint is down) and the failure rate of calls over a sliding window with a minimum of calls. Open:
 * admits nothing until its next probe (`probeDelay`: soon while calls wait for a verdict, sparser as the outage
 * ages while nobody does); a timer half-opens it then. Half-open: admits a bounded number of probes, each with
 * a time limit; as many successes close it, one failure re-opens it. Neutral outcomes (non-retryable errors,
 * tool results, rate limits) count neither way.
 */
export class CircuitBreaker {
  private inner: Inner = { state: 'closed', consecutiveFailures: 0 };
  private since: number;
  private reopenCount = 0;
  /** When the breaker first opened in the running outage (kept through half-open and re-opens; undefined while closed). */
  private outageStart: number | undefined;
  private readonly window: SlidingWindow;
  private timer: AbortController | undefined;

  constructor(
    readonly endpoint: string,
    readonly attributes: Readonly<Record<string, string>>,
    private readonly options: CircuitBreakerOptions,
    private readonly clock: Clock,
    private readonly onTransition: (transition: Transition) => void,
    private readonly hooks: BreakerHooks = noHooks,
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
   * break, `extendOpen`, when the lease's answer comes; a promise of that answer when a call asked).
   * `timer`: asked by the break's timer, not by a call.
   */
  probeGuard: ((now: number, timer: boolean) => boolean | Promise<void>) | undefined;

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

  /** While open or half-open: epoch milliseconds at which the breaker first opened in this outage. */
  get outageSince(): number | undefined {
    return this.outageStart;
  }

  /**
   * `waiters` calls now wait whose limits need a verdict: while open, the next probe moves to their schedule
   * (`probeDelay` for that many waiters, drawn when the breaker opened) when that is earlier and comes by `by` (a
   * probe nobody can use is not moved). A call waiting alone (`lone`) is probed as `loneProbeAt` says, earlier or
   * later than the break: within the outage's first naive call, at that loop's retries. Returns the time of the
   * next probe (undefined when not open); after `by`, the probe is of no use to the call.
   */
  expedite(now: number, by: number, waiters: number, lone?: LoneCall): number | undefined {
    const inner = this.inner;
    if (inner.state !== 'open') return undefined;
    // a lone waiter's naive probe is the next probe, even when it comes too late for this call (then it leaves)
    const naive = this.naiveProbeAt(inner, now, waiters, lone);
    const soon = naive ?? Math.max(now, waiters >= 2 ? inner.soonAt : inner.loneAt);
    if (naive === undefined && (soon >= inner.until || soon > by)) return inner.until;
    inner.until = soon;
    this.armTimer(soon - now);
    return soon;
  }

  /** When the next probe comes if `waiters` calls wait for it (`expedite`); undefined when not open. */
  probeIfWaiting(now: number, waiters: number, lone?: LoneCall): number | undefined {
    const inner = this.inner;
    if (inner.state !== 'open') return undefined;
    return (
      this.naiveProbeAt(inner, now, waiters, lone) ??
      Math.min(inner.until, Math.max(now, waiters >= 2 ? inner.soonAt : inner.loneAt))
    );
  }

  /**
   * A lone waiter's probe while the outage's first naive call runs (`loneProbeAt`); undefined for several
   * waiters, for a call with a deadline of its own (the lone schedule was measured for those), when it is the lone
   * schedule's own, or sooner after the breaker opened than `breakerBreakMs`.
   */
  private naiveProbeAt(inner: OpenInner, now: number, waiters: number, lone: LoneCall | undefined) {
    if (waiters !== 1 || lone === undefined || !lone.defaultLimit) return undefined;
    const dueAt = Math.max(now, inner.loneAt);
    const at = loneProbeAt({
      now,
      dueAt,
      outageStart: this.hooks.outageStart?.() ?? this.outageStart ?? now,
      spanMs: lone.limitAt - lone.start,
    });
    // never sooner after the breaker opened than its first break (`breakerBreakMs`)
    return at === dueAt || at < this.since + this.options.breakerBreakMs ? undefined : at;
  }

  /**
   * A verdict shared by another process (through a store): the endpoint is down, probed there, until `until`.
   * Taken when it says more than ours: a closed breaker opens until then (reason `shared`), an open one stays
   * open at least that long; a half-open one (probing here) and a verdict already past are ignored.
   */
  adoptOpen(now: number, until: number, outageSince = now): void {
    const inner = this.inner;
    if (until <= now || inner.state === 'half_open') return;
    if (inner.state === 'open') {
      if (until <= inner.until) return;
      inner.until = until;
      this.armTimer(until - now);
      return;
    }
    this.outageStart = Math.min(now, outageSince);
    this.moveTo({ state: 'open', until, soonAt: until, loneAt: until }, now, 'shared');
    this.armTimer(until - now);
  }

  admit(now: number): Admission {
    const inner = this.inner;
    if (inner.state === 'closed') return ADMITTED;
    if (inner.state === 'open') {
      if (now < inner.until) return { admitted: false, retryAfterMs: inner.until - now };
      const guard = this.probeGuard?.(now, false) ?? true;
      if (guard !== true) {
        const retryAfterMs = Math.max(0, (this.openUntil ?? now) - now);
        return guard === false
          ? { admitted: false, retryAfterMs }
          : { admitted: false, retryAfterMs, pending: guard };
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
      ...(this.outageStart === undefined ? {} : { outageSince: this.outageStart }),
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
   * The share of `probeDelay` this breaker waits (1 when unset): a fleet probes more often than one replica, as it
   * has more callers to lose while the endpoint is down and one request per probe.
   */
  breakShare: (() => number) | undefined;

  private breakMs(now: number, waiting: number, random: number): number {
    const share = this.breakShare?.() ?? 1;
    return (
      share *
      probeDelay({
        ...this.options,
        failedProbes: this.reopenCount,
        outageAgeMs: now - (this.outageStart ?? now),
        waiting,
        expectedRecoveryMs: this.hooks.expectedRecoveryMs(now),
        random: () => random,
      })
    );
  }

  /**
   * Another replica's verdict: open until `until` (reason `fleet_open`), in an outage that began at `outageStart`.
   * Taken while closed, or while open until earlier (the break is extended without a transition); ignored while
   * half-open (a probe is out).
   */
  adoptFleetOpen(until: number, now: number, outageStart = now): void {
    const inner = this.inner;
    if (inner.state === 'half_open') return;
    this.outageStart = Math.min(this.outageStart ?? outageStart, outageStart);
    if (inner.state === 'open') {
      this.extendOpen(until);
      return;
    }
    this.adopted = true;
    this.moveTo({ state: 'open', until, soonAt: until, loneAt: until }, now, 'fleet_open');
    this.armTimer(Math.max(0, until - now));
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
    inner.until = until;
    this.armTimer(Math.max(0, until - this.clock.now()));
  }

  /**
   * The fleet's failures in a row reached `breakerConsecutiveFailures`, the last of them here: a closed breaker
   * opens (reason `shared_failures`) as if it had counted them all itself; the verdict is this replica's.
   */
  openOnSharedFailures(now: number): void {
    if (this.inner.state === 'closed' && this.inner.consecutiveFailures > 0)
      this.open(now, 'shared_failures');
  }

  /** The fleet's probe lease is this replica's: an open breaker half-opens now. */
  halfOpenNow(): void {
    if (this.inner.state === 'open') this.halfOpen(this.clock.now(), 'break_elapsed');
  }

  private open(now: number, reason: string, callId?: number): void {
    this.adopted = false;
    this.outageStart ??= now;
    const random = this.clock.random();
    const soonMs = this.breakMs(now, 2, random);
    const loneMs = this.breakMs(now, 1, random); // nobody waiting has the same schedule
    const breakMs = this.hooks.waiters() >= 2 ? soonMs : loneMs;
    this.moveTo(
      { state: 'open', until: now + breakMs, soonAt: now + soonMs, loneAt: now + loneMs },
      now,
      reason,
      callId,
    );
    this.armTimer(breakMs);
  }

  /** (Re)arms the one timer that half-opens the breaker `ms` from now. */
  private armTimer(ms: number): void {
    this.timer?.abort();
    const timer = new AbortController();
    this.timer = timer;
    this.clock.sleep(ms, timer.signal, { unref: true }).then(
      () => {
        if (this.timer !== timer || this.inner.state !== 'open') return;
        const now = this.clock.now();
        if (!this.probeGuard || this.probeGuard(now, true) === true) this.halfOpen(now, 'break_elapsed');
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
    if (next.state === 'closed') {
      this.window.reset();
      this.outageStart = undefined;
    }
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
