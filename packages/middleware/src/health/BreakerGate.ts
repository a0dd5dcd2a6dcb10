import type { Clock } from '../Clock.js';
import type { CircuitBreaker, Transition } from './CircuitBreaker.js';
import { type GateVerdict, GO, GO_PROBE } from './GateVerdict.js';
import { RecoveryRamp } from './RecoveryRamp.js';
import { looksDown } from './suspectHold.js';
import { type OnTimer, type Waiter, WaitQueue } from './WaitQueue.js';

export type { Admitted, GateVerdict } from './GateVerdict.js';

export interface BreakerGateOptions {
  /** Wait for the breaker's verdict when the bet pays (true) or fail at once when it does not admit (false). */
  readonly breakerWait: boolean;
  /** How long a retry is held at most while the endpoint looks down but its breaker has not opened. */
  readonly breakerHoldMaxMs: number;
  /** Calls waiting at most per endpoint; beyond, a call is shed at once. */
  readonly breakerMaxWaiting: number;
  readonly breakerHalfOpenProbes: number;
}

/** One attempt asking the gate. */
export interface GateRequest {
  readonly now: number;
  /** The last moment at which the call can still use a release (its deadline minus an attempt, or its limit). */
  readonly limitAt: number;
  readonly signal?: AbortSignal | undefined;
  /** The call id when the attempt is a retry. */
  readonly retryOf?: number | undefined;
  /** The limit is the default one (the call has none of its own): the bet asks for better odds. */
  readonly defaultLimit?: boolean;
  /** When the call started: with `limitAt`, how long the naive loop a lone waiter is probed like may last. */
  readonly callStart?: number;
}

/** The bet on a recovery, placed by the endpoint from the outage's age and its past outages (`recoveryOdds`). */
export interface RecoveryBet {
  /** Whether waiting from `now` until `limitAt` is likely enough to see a recovery to start waiting. */
  likely(now: number, limitAt: number, defaultLimit: boolean): boolean;
  /** When a call waiting from `now` stops: the moment its odds, judged again as time passes, fall too low. */
  leaveAt(now: number, limitAt: number, defaultLimit: boolean): number;
}

/** Without an endpoint's judgement: every wait is worth it, to the call's limit. */
const ALWAYS: RecoveryBet = { likely: () => true, leaveAt: (_now, limitAt) => limitAt };

/**
 * The breaker as a gate with a queue, not a wall: a call that meets an open breaker waits, sending nothing, only
 * when recovery before its limit is likely (`RecoveryBet`) and the next probe comes before it stops waiting;
 * otherwise it fails at once with `circuit_open`. It stops waiting, unreleased, at the moment the bet's odds fall
 * too low (`RecoveryBet.leaveAt`), and on a failed probe if they already have. Three mechanisms, each in its own
 * file: the wait queue (`WaitQueue`), the suspect hold of retries before the breaker opens (`looksDown`), the
 * paced AIMD ramp after a recovery (`RecoveryRamp`). See the README, "The breaker's gate".
 */
export class BreakerGate {
  private readonly queue: WaitQueue;
  /** Retries held while the endpoint looks down: until a success elsewhere, the breaker opening, the hold's end. */
  private readonly held: WaitQueue;
  private readonly ramp: RecoveryRamp;

  constructor(
    private readonly breaker: CircuitBreaker,
    private readonly options: BreakerGateOptions,
    private readonly clock: Clock,
    private readonly bet: RecoveryBet = ALWAYS,
  ) {
    this.queue = new WaitQueue(clock);
    this.held = new WaitQueue(clock);
    this.ramp = new RecoveryRamp(clock, () => this.release());
  }

  /** Calls waiting now. */
  get waiting(): number {
    return this.queue.length + this.held.length;
  }

  /** Whether retries are being held for a verdict (a success elsewhere releases them). */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** Whether a released call's failure shrinks the ramp instead of counting for the breaker. */
  get rampAbsorbsFailures(): boolean {
    return this.ramp.absorbsFailures;
  }

  /** An attempt of any call succeeded while the breaker is closed: the held retries go. */
  onSuccess(): void {
    for (const w of this.held.waiters()) w.settle(GO);
  }

  /**
   * The verdict for an attempt, at once when there is one, else a promise of it. A call that finds the break
   * over while the fleet is asked for its probe lease waits for the answer (once: `asked`), to be the probe.
   */
  pass(r: GateRequest, asked = false): GateVerdict | Promise<GateVerdict> {
    const { now, limitAt } = r;
    if (this.shouldHold(r)) {
      const until = Math.min(limitAt, now + this.options.breakerHoldMaxMs);
      // the hold ends: the retry goes, unless the hold ran to the call's limit
      const ended: OnTimer = (w) => (until < limitAt ? GO : this.timedOut(w));
      return this.held.add(limitAt, false, r.defaultLimit === true, r.signal, until, ended);
    }
    let retryAfterMs = 0;
    if (this.queue.length === 0) {
      const admission = this.breaker.admit(now);
      if (admission.admitted) return admission.probe ? GO_PROBE : GO;
      if (admission.pending && !asked)
        return admission.pending.then(() => this.pass({ ...r, now: this.clock.now() }, true));
      retryAfterMs = admission.retryAfterMs;
    }
    if (!this.options.breakerWait || limitAt <= now) return { kind: 'circuit_open', retryAfterMs };
    const defaultLimit = r.defaultLimit === true;
    let waitEnd = limitAt;
    if (this.breaker.state !== 'closed') {
      if (!this.bet.likely(now, limitAt, defaultLimit)) return this.unlikely(now, retryAfterMs);
      // the wait ends where the bet's odds fall too low, the call's limit at the latest: a probe after it is of no use
      waitEnd = this.waitEnd(now, limitAt, defaultLimit);
      const lone = r.callStart === undefined ? undefined : { start: r.callStart, limitAt, defaultLimit };
      const nextProbe = this.breaker.expedite(now, waitEnd, this.queue.length + 1, lone);
      if (nextProbe !== undefined && nextProbe > waitEnd) {
        return { kind: 'circuit_open', retryAfterMs: nextProbe - now };
      }
    }
    if (this.waiting >= this.options.breakerMaxWaiting) return { kind: 'shed', waiting: this.waiting };
    const fresh = r.retryOf === undefined;
    const waiting = this.queue.add(limitAt, fresh, defaultLimit, r.signal, waitEnd, this.stopped(waitEnd));
    this.release();
    return waiting;
  }

  /** An admitted attempt ended: frees its ramp slot or its probe slot, and releases whom that lets through. */
  onAttemptEnd(verdict: GateVerdict, result: 'success' | 'failure' | 'neutral'): void {
    if (verdict.kind !== 'admitted') return;
    if (verdict.ramp) this.ramp.ended(verdict, result, this.clock.now());
    this.release();
  }

  /** The breaker changed state: release probes, start a ramp, or fail the waiters it no longer pays to hold. */
  onTransition(transition: Transition): void {
    if (transition.to === 'closed') {
      this.ramp.start(this.options.breakerHalfOpenProbes);
      for (const w of this.held.waiters()) w.settle(GO);
    } else if (transition.to === 'open') {
      const now = transition.time;
      // held retries become waiters for the probe, until their odds fall too low
      for (const w of this.held.waiters()) {
        const end = this.waitEnd(now, w.limitAt, w.defaultLimit);
        this.queue.adopt(w, end, this.stopped(end));
      }
      // a failed probe: the waiters whose odds have fallen too low (or whose limit comes before the next) leave
      const openUntil = this.breaker.openUntil ?? now;
      for (const w of this.queue.waiters()) {
        const hopeless = w.limitAt < openUntil || this.waitEnd(now, w.limitAt, w.defaultLimit) <= now;
        if (hopeless) w.settle({ kind: 'circuit_open', retryAfterMs: openUntil - now });
      }
    }
    this.release();
  }

  /** Fails every waiter (the endpoint is being dropped). */
  dispose(): void {
    this.ramp.dispose();
    for (const w of [...this.queue.waiters(), ...this.held.waiters()]) {
      w.settle({ kind: 'circuit_open', retryAfterMs: 0 });
    }
  }

  /** A retry while the endpoint looks down (breaker still closed) is held rather than sent into the failures. */
  private shouldHold(r: GateRequest): boolean {
    return (
      r.retryOf !== undefined &&
      this.options.breakerWait &&
      r.limitAt > r.now &&
      this.waiting < this.options.breakerMaxWaiting &&
      looksDown({
        state: this.breaker.state,
        consecutiveFailures: this.breaker.consecutiveFailures,
        lastFailedCall: this.breaker.lastFailedCall,
        rampRunning: this.ramp.running,
        callId: r.retryOf,
      })
    );
  }

  /** Recovery before the call's limit is unlikely: fail now, `retryAfterMs` until the next probe. */
  private unlikely(now: number, retryAfterMs: number): GateVerdict {
    const openUntil = this.breaker.openUntil;
    return { kind: 'circuit_open', retryAfterMs: openUntil === undefined ? retryAfterMs : openUntil - now };
  }

  /** Where a wait from `now` ends: where the bet's odds fall too low, `limitAt` at the latest. */
  private waitEnd(now: number, limitAt: number, defaultLimit: boolean): number {
    return Math.max(now, Math.min(limitAt, this.bet.leaveAt(now, limitAt, defaultLimit)));
  }

  /**
   * What a waiter whose wait ends at `end` gets then, unreleased: `circuit_open` when the bet ended it before its
   * limit, else `timeout`; either with `retryAfterMs` until the next probe.
   */
  private stopped(end: number): OnTimer {
    return (w) => {
      if (end >= w.limitAt) return this.timedOut(w);
      return { kind: 'circuit_open', retryAfterMs: this.untilProbe() };
    };
  }

  /** A waiter reached its limit unreleased: `retryAfterMs` until the next probe. */
  private readonly timedOut: OnTimer = () => ({ kind: 'timeout', retryAfterMs: this.untilProbe() });

  /** How long from now until the next probe (0 when none is scheduled). */
  private untilProbe(): number {
    return Math.max(0, (this.breaker.openUntil ?? 0) - this.clock.now());
  }

  /** Releases waiters, oldest first, as far as the breaker and the ramp allow. */
  private release(): void {
    const now = this.clock.now();
    while (this.queue.length > 0) {
      if (this.breaker.state === 'closed') {
        const step = this.ramp.step(now);
        if (step.kind !== 'release') return;
        this.queue.first()!.settle(step.verdict);
        continue;
      }
      const admission = this.breaker.admit(now);
      if (!admission.admitted) return;
      const next: Waiter = admission.probe ? this.queue.firstFresh()! : this.queue.first()!;
      next.settle(admission.probe ? GO_PROBE : GO);
    }
    this.ramp.stop(); // nobody waits: the ramp is over
  }
}
