import { type Clock, TIMER_STOPPED } from '../Clock.js';
import type { CircuitBreaker, Transition } from './CircuitBreaker.js';

export interface BreakerGateOptions {
  /** Wait for the breaker's verdict (true) or fail at once when it does not admit (false: fail-fast). */
  readonly breakerWait: boolean;
  /** Calls waiting at most per endpoint; beyond, a call is shed at once. */
  readonly breakerMaxWaiting: number;
  readonly breakerHalfOpenProbes: number;
}

/** What the gate says about an attempt. Plain data. */
export type GateVerdict =
  /** Go: as a normal attempt, a half-open probe, or one of the calls released in the ramp after recovery. */
  | { readonly kind: 'admitted'; readonly probe: boolean; readonly ramp: boolean }
  /** The breaker cannot give a verdict before the call's limit: fail now (`retryAfterMs`: until the next probe). */
  | { readonly kind: 'circuit_open'; readonly retryAfterMs: number }
  /** The wait queue is full. */
  | { readonly kind: 'shed'; readonly waiting: number }
  /** The call waited until its limit without being released. */
  | { readonly kind: 'timeout'; readonly retryAfterMs: number }
  /** The caller's signal aborted the wait. */
  | { readonly kind: 'aborted'; readonly reason: unknown };

interface Waiter {
  readonly limitAt: number;
  readonly settle: (verdict: GateVerdict) => void;
}

const GO: GateVerdict = { kind: 'admitted', probe: false, ramp: false };
const GO_RAMP: GateVerdict = { kind: 'admitted', probe: false, ramp: true };
const GO_PROBE: GateVerdict = { kind: 'admitted', probe: true, ramp: false };

/**
 * The breaker as a gate with a queue, not a wall. A call that meets an open (or full half-open) breaker waits,
 * sending nothing, when its limit (deadline, or wait limit) reaches past the next probe; otherwise it fails at
 * once with `circuit_open`. When the breaker half-opens, the oldest waiters are the probes; when a probe
 * succeeds, the waiters are released in a ramp rather than all at once onto a recovering server: the window of
 * released calls in flight starts at twice the probes, grows by one per success (it doubles per round trip) and
 * halves per failure (AIMD); while it runs, new calls queue behind the backlog, and a failure of a released
 * call halves the window instead of counting towards re-opening the breaker (unless the window is at 1): the
 * ramp finds what a recovering (or overloaded) server can take, instead of a second storm. Bounded: beyond
 * `breakerMaxWaiting` a call is shed at once. The caller's signal ends a wait at once.
 */
export class BreakerGate {
  private readonly queue: Waiter[] = [];
  /** Released calls in flight allowed while a ramp runs; infinite when none runs. */
  private rampWindow = Number.POSITIVE_INFINITY;
  private rampInFlight = 0;
  /** The window doubles per round trip until the first failure, then grows by one per round trip. */
  private rampSlowStart = true;
  /** A released call failed in the last ramp (a server that recovers slowly, or is overloaded): the next ramp starts gently. */
  private rampFailed = false;

  constructor(
    private readonly breaker: CircuitBreaker,
    private readonly options: BreakerGateOptions,
    private readonly clock: Clock,
  ) {}

  /** Calls waiting now. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * The verdict for an attempt at `now`, at once when there is one, else a promise of it. `limitAt`: the last
   * moment at which the call can still use a release (its deadline minus an attempt's usual duration, or its
   * wait limit).
   */
  pass(now: number, limitAt: number, signal?: AbortSignal): GateVerdict | Promise<GateVerdict> {
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
    if (this.queue.length >= this.options.breakerMaxWaiting) {
      return { kind: 'shed', waiting: this.queue.length };
    }
    const waiting = this.wait(now, limitAt, signal);
    this.release();
    return waiting;
  }

  /** Whether a ramp runs with its window at the floor: its failures then count for the breaker again. */
  get rampThrottled(): boolean {
    return this.rampWindow !== Number.POSITIVE_INFINITY && this.rampWindow > 1;
  }

  /**
   * An admitted attempt ended: frees its ramp slot or its probe slot, and releases whom that lets through. The
   * ramp's window grows by one per success and halves per unhealthy failure (AIMD), so that a server that
   * recovered with less capacity than before (an overload) gets what it can serve, not a second storm.
   */
  onAttemptEnd(verdict: GateVerdict, result: 'success' | 'failure' | 'neutral'): void {
    if (verdict.kind !== 'admitted') return;
    if (verdict.ramp) {
      this.rampInFlight = Math.max(0, this.rampInFlight - 1);
      if (result === 'success') this.rampWindow += this.rampSlowStart ? 1 : 1 / this.rampWindow;
      else if (result === 'failure') {
        this.rampWindow = Math.max(1, this.rampWindow / 2);
        this.rampSlowStart = false;
        this.rampFailed = true;
      }
    }
    this.release();
  }

  /** The breaker changed state: release probes, start a ramp, or fail the waiters the next probe comes too late for. */
  onTransition(transition: Transition): void {
    if (transition.to === 'closed') {
      this.rampWindow = 2 * this.options.breakerHalfOpenProbes;
      this.rampInFlight = 0;
      this.rampSlowStart = !this.rampFailed;
    } else if (transition.to === 'open') {
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
        this.rampInFlight++;
        this.queue.shift()!.settle(GO_RAMP);
        continue;
      }
      const admission = this.breaker.admit(now);
      if (!admission.admitted) return;
      this.queue.shift()!.settle(admission.probe ? GO_PROBE : GO);
    }
    if (this.rampWindow !== Number.POSITIVE_INFINITY) this.rampFailed = false; // the backlog drained
    this.rampWindow = Number.POSITIVE_INFINITY; // nobody waits: the ramp is over
  }

  private failWaiters(which: (w: Waiter) => boolean, verdict: () => GateVerdict): void {
    for (const w of this.queue.filter(which)) w.settle(verdict());
  }

  private wait(now: number, limitAt: number, signal: AbortSignal | undefined): Promise<GateVerdict> {
    return new Promise<GateVerdict>((resolve) => {
      const timer = new AbortController();
      const onAbort = () => settle({ kind: 'aborted', reason: signal?.reason });
      const waiter: Waiter = { limitAt, settle };
      function settle(this: void, verdict: GateVerdict) {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        timer.abort(TIMER_STOPPED);
        signal?.removeEventListener('abort', onAbort);
        resolve(verdict);
      }
      const queue = this.queue;
      if (signal?.aborted) return resolve({ kind: 'aborted', reason: signal.reason });
      queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.clock.sleep(limitAt - now, timer.signal).then(
        () => settle({ kind: 'timeout', retryAfterMs: Math.max(0, (this.breaker.openUntil ?? 0) - limitAt) }),
        () => {},
      );
    });
  }
}
