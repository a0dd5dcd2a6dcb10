import { type Clock, TIMER_STOPPED } from '../Clock.js';
import type { CircuitBreaker, Transition } from './CircuitBreaker.js';

export interface BreakerGateOptions {
  /** Wait for the breaker's verdict (true) or fail at once when it does not admit (false: fail-fast). */
  readonly breakerWait: boolean;
  /** How long a retry is held at most while the endpoint looks down but its breaker has not opened. */
  readonly breakerMaxBreakMs: number;
  /** Calls waiting at most per endpoint; beyond, a call is shed at once. */
  readonly breakerMaxWaiting: number;
  readonly breakerHalfOpenProbes: number;
}

/** What the gate says about an attempt. Plain data. */
export type GateVerdict =
  /** Go: as a normal attempt, a half-open probe, or one of the calls released in the ramp after recovery. */
  | {
      readonly kind: 'admitted';
      readonly probe: boolean;
      readonly ramp: boolean;
      /** For a call released by the ramp: the window cuts made before its release. */
      readonly cuts?: number;
      /** For a call released by the ramp: when (its round trip is measured from there). */
      readonly releasedAt?: number;
    }
  /** No verdict can come before the call's limit: fail now (`retryAfterMs`: until the next probe). */
  | { readonly kind: 'circuit_open'; readonly retryAfterMs: number }
  /** The wait queue is full. */
  | { readonly kind: 'shed'; readonly waiting: number }
  /** The call waited until its limit without being released. */
  | { readonly kind: 'timeout'; readonly retryAfterMs: number }
  /** The caller's signal aborted the wait. */
  | { readonly kind: 'aborted'; readonly reason: unknown };

interface Waiter {
  readonly limitAt: number;
  /** Not sent yet (its first attempt): preferred as a probe, so that failed calls keep their attempts. */
  readonly fresh: boolean;
  /** Held (a retry while the endpoint looks down) until this time at most, then it goes anyway. */
  holdUntil: number | undefined;
  readonly settle: (verdict: GateVerdict) => void;
  /** (Re)sets the waiter's one timer. */
  arm(at: number): void;
}

const GO: GateVerdict = { kind: 'admitted', probe: false, ramp: false };
const GO_PROBE: GateVerdict = { kind: 'admitted', probe: true, ramp: false };

/**
 * The breaker as a gate with a queue, not a wall. A call that meets an open (or full half-open) breaker waits,
 * sending nothing, when its limit (deadline, or wait limit) reaches past the next probe; otherwise it fails at
 * once with `circuit_open`. When the breaker half-opens, the oldest waiters not yet sent are the probes (a call
 * that already failed keeps its attempts for after the recovery). When a probe succeeds, the waiters are
 * released in a ramp rather than all at once onto a recovering server: the window of released calls in flight
 * starts at twice the probes and grows by one per success (it doubles per round trip) until a released call
 * fails; then it halves, once per round trip, and grows by one per round trip (AIMD). While the ramp runs, new
 * calls queue behind the backlog, and a released call's failure shrinks the window instead of counting towards
 * re-opening the breaker (unless the window is at 1): the ramp finds what a recovering (or overloaded) server
 * can take, instead of a second storm. The releases are paced, one every smoothed round trip / window (TCP
 * pacing) from a window of 2 (one call in flight cannot burst, and a fast failure should not wait a round
 * trip), not in bursts: a server that admits so much per second rejects a burst that the same rate spread out
 * would pass, and each rejection costs it work and the call time. Bounded: beyond `breakerMaxWaiting` a call
 * is shed at once. The caller's signal ends a wait at once, its listener removed.
 */
export class BreakerGate {
  private readonly queue: Waiter[] = [];
  /** Retries held while the endpoint looks down: until a success elsewhere, the breaker opening, `holdUntil`. */
  private readonly held: Waiter[] = [];
  /** Released calls in flight allowed while a ramp runs; infinite when none runs. */
  private rampWindow = Number.POSITIVE_INFINITY;
  private rampInFlight = 0;
  /** Times the ramp's window was halved. */
  private rampCuts = 0;
  /** The window doubles per round trip until the first failure, then grows by one per round trip. */
  private rampSlowStart = true;
  /** A released call failed in the last ramp (a slow recovery, an overload): the next ramp starts gently. */
  private rampFailed = false;
  /** Smoothed round trip of the released calls that succeeded (1/8 per sample, as TCP's SRTT). */
  private rampRttMs: number | undefined;
  /** The ramp's next release, not before: paced at `rampRttMs / rampWindow`. */
  private nextReleaseAt = 0;
  /** The one timer of a release held back by the pacing. */
  private pacer: AbortController | undefined;

  constructor(
    private readonly breaker: CircuitBreaker,
    private readonly options: BreakerGateOptions,
    private readonly clock: Clock,
  ) {}

  /** Calls waiting now. */
  get waiting(): number {
    return this.queue.length + this.held.length;
  }

  /** Whether retries are being held for a verdict (a success elsewhere releases them). */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** An attempt of any call succeeded while the breaker is closed: the held retries go. */
  onSuccess(): void {
    for (const w of [...this.held]) w.settle(GO);
  }

  /**
   * For a retry of call `callId`: the endpoint looks down before its breaker opens: closed, no ramp running,
   * the last `SUSPECT_FAILURES` attempts all failed, the last of them another call's (a lone call's retries are
   * never held: nobody else would bring the verdict).
   */
  private suspect(callId: number): boolean {
    return (
      this.breaker.state === 'closed' &&
      this.rampWindow === Number.POSITIVE_INFINITY &&
      this.breaker.consecutiveFailures >= SUSPECT_FAILURES &&
      this.breaker.lastFailedCall !== callId
    );
  }

  /**
   * The verdict for an attempt at `now`, at once when there is one, else a promise of it. `limitAt`: the last
   * moment at which the call can still use a release (its deadline minus an attempt's usual duration, or its
   * wait limit). `retryOf`: the call id when the attempt is a retry; while the endpoint looks down (failed
   * attempts of other calls in a row, breaker still closed), a retry is held until a success elsewhere, the
   * breaker opening (it then waits for the probe), or `breakerMaxBreakMs`, instead of joining the failures.
   */
  pass(
    now: number,
    limitAt: number,
    signal?: AbortSignal,
    retryOf?: number,
  ): GateVerdict | Promise<GateVerdict> {
    const hold =
      retryOf !== undefined &&
      this.options.breakerWait &&
      limitAt > now &&
      this.waiting < this.options.breakerMaxWaiting &&
      this.suspect(retryOf);
    if (hold) {
      return this.wait(limitAt, false, signal, Math.min(limitAt, now + this.options.breakerMaxBreakMs));
    }
    let retryAfterMs = 0;
    if (this.queue.length === 0) {
      const admission = this.breaker.admit(now);
      if (admission.admitted) return admission.probe ? GO_PROBE : GO;
      retryAfterMs = admission.retryAfterMs;
    }
    if (!this.options.breakerWait) return { kind: 'circuit_open', retryAfterMs };
    const openUntil = this.breaker.openUntil;
    if (openUntil !== undefined && openUntil > limitAt) {
      return { kind: 'circuit_open', retryAfterMs: openUntil - now };
    }
    if (limitAt <= now) return { kind: 'circuit_open', retryAfterMs };
    if (this.waiting >= this.options.breakerMaxWaiting) return { kind: 'shed', waiting: this.waiting };
    const waiting = this.wait(limitAt, retryOf === undefined, signal);
    this.release();
    return waiting;
  }

  /** Whether a ramp runs with its window at the floor: its failures then count for the breaker again. */
  get rampThrottled(): boolean {
    return this.rampWindow !== Number.POSITIVE_INFINITY && this.rampWindow > 1;
  }

  /**
   * An admitted attempt ended: frees its ramp slot or its probe slot, and releases whom that lets through. The
   * ramp's window grows per success and halves per unhealthy failure, once per round trip (AIMD), so that a
   * server that recovered with less capacity than before (an overload) gets what it can serve, not a second
   * storm.
   */
  onAttemptEnd(verdict: GateVerdict, result: 'success' | 'failure' | 'neutral'): void {
    if (verdict.kind !== 'admitted') return;
    if (verdict.ramp) {
      this.rampInFlight = Math.max(0, this.rampInFlight - 1);
      if (result === 'success') {
        this.rampWindow += this.rampSlowStart ? 1 : 1 / this.rampWindow;
        const rtt = this.clock.now() - (verdict.releasedAt ?? this.clock.now());
        this.rampRttMs = this.rampRttMs === undefined ? rtt : this.rampRttMs + (rtt - this.rampRttMs) / 8;
      } else if (result === 'failure' && (verdict.cuts ?? 0) >= this.rampCuts) {
        // one cut per round trip: calls released before the last cut were sent into the old window
        this.rampCuts++;
        this.rampWindow = Math.max(1, this.rampWindow / 2);
        this.rampSlowStart = false;
        this.rampFailed = true;
      }
    }
    this.release();
  }

  /** The breaker changed state: release probes, start a ramp, or fail the waiters the next probe is too late for. */
  onTransition(transition: Transition): void {
    if (transition.to === 'closed') {
      this.rampWindow = 2 * this.options.breakerHalfOpenProbes;
      this.rampInFlight = 0;
      this.rampSlowStart = !this.rampFailed;
      this.rampRttMs = undefined; // measured afresh: the recovered server may be slower or faster than before
      this.nextReleaseAt = 0;
      for (const w of [...this.held]) w.settle(GO);
    } else if (transition.to === 'open') {
      // held retries become waiters for the probe, with their own limit
      for (const w of this.held.splice(0)) {
        w.holdUntil = undefined;
        w.arm(w.limitAt);
        this.queue.push(w);
      }
      const openUntil = this.breaker.openUntil ?? transition.time;
      this.failWaiters(
        (w) => w.limitAt < openUntil,
        () => ({ kind: 'circuit_open', retryAfterMs: openUntil - transition.time }),
      );
    }
    this.release();
  }

  /** Fails every waiter (the endpoint is being dropped). */
  dispose(): void {
    this.stopPacing();
    this.failWaiters(
      () => true,
      () => ({ kind: 'circuit_open', retryAfterMs: 0 }),
    );
  }

  /** Releases waiters, oldest first, as far as the breaker and the ramp allow. */
  private release(): void {
    const now = this.clock.now();
    while (this.queue.length > 0) {
      if (this.breaker.state === 'closed') {
        if (this.rampInFlight >= this.rampWindow) return;
        if (this.rampWindow >= 2 && now < this.nextReleaseAt) {
          this.paceUntil(this.nextReleaseAt);
          return;
        }
        this.rampInFlight++;
        this.nextReleaseAt = now + (this.rampRttMs ?? 0) / this.rampWindow;
        this.queue.shift()!.settle({
          kind: 'admitted',
          probe: false,
          ramp: true,
          cuts: this.rampCuts,
          releasedAt: now,
        });
        continue;
      }
      const admission = this.breaker.admit(now);
      if (!admission.admitted) return;
      const i = admission.probe
        ? Math.max(
            0,
            this.queue.findIndex((w) => w.fresh),
          )
        : 0;
      this.queue.splice(i, 1)[0]!.settle(admission.probe ? GO_PROBE : GO);
    }
    if (this.rampWindow !== Number.POSITIVE_INFINITY) this.rampFailed = false; // the backlog drained
    this.rampWindow = Number.POSITIVE_INFINITY; // nobody waits: the ramp is over
    this.stopPacing();
  }

  /** Releases again at `at` (whole milliseconds: a timer cannot fire earlier), one timer at a time. */
  private paceUntil(at: number): void {
    if (this.pacer) return;
    const pacer = new AbortController();
    this.pacer = pacer;
    this.clock.sleep(Math.ceil(at - this.clock.now()), pacer.signal).then(
      () => {
        if (this.pacer === pacer) this.pacer = undefined;
        this.release();
      },
      () => {},
    );
  }

  private stopPacing(): void {
    this.pacer?.abort(TIMER_STOPPED);
    this.pacer = undefined;
  }

  private failWaiters(which: (w: Waiter) => boolean, verdict: () => GateVerdict): void {
    for (const w of [...this.queue, ...this.held].filter(which)) w.settle(verdict());
  }

  /** Queues a waiter (held until `holdUntil` when given): resolves with its verdict. */
  private wait(
    limitAt: number,
    fresh: boolean,
    signal: AbortSignal | undefined,
    holdUntil?: number,
  ): Promise<GateVerdict> {
    if (signal?.aborted) return Promise.resolve({ kind: 'aborted', reason: signal.reason });
    const { clock, queue, held, breaker } = this;
    return new Promise<GateVerdict>((resolve) => {
      let timer: AbortController | undefined;
      let done = false;
      const onAbort = () => waiter.settle({ kind: 'aborted', reason: signal?.reason });
      const waiter: Waiter = {
        limitAt,
        fresh,
        holdUntil,
        settle(verdict) {
          if (done) return;
          done = true;
          for (const list of [queue, held]) {
            const i = list.indexOf(waiter);
            if (i >= 0) list.splice(i, 1);
          }
          timer?.abort(TIMER_STOPPED);
          signal?.removeEventListener('abort', onAbort);
          resolve(verdict);
        },
        arm(at) {
          timer?.abort(TIMER_STOPPED);
          const mine = new AbortController();
          timer = mine;
          clock.sleep(Math.max(0, at - clock.now()), mine.signal).then(
            () => {
              if (timer !== mine) return;
              if (waiter.holdUntil !== undefined && waiter.holdUntil < waiter.limitAt) waiter.settle(GO);
              else {
                const retryAfterMs = Math.max(0, (breaker.openUntil ?? 0) - waiter.limitAt);
                waiter.settle({ kind: 'timeout', retryAfterMs });
              }
            },
            () => {},
          );
        },
      };
      (holdUntil === undefined ? queue : held).push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiter.arm(holdUntil ?? limitAt);
    });
  }
}

/** Failed attempts in a row (of any calls) from which a retry waits for a verdict before it is sent. */
const SUSPECT_FAILURES = 2;
