import { type Clock, TIMER_STOPPED } from '../Clock.js';
import type { Admitted } from './GateVerdict.js';

/** What the ramp says about releasing the next waiter now. */
export type RampStep =
  /** Release one now, with this verdict. */
  | { readonly kind: 'release'; readonly verdict: Admitted }
  /** The window is full: wait for a released call to end. */
  | { readonly kind: 'full' }
  /** Paced: the ramp calls back when the next release is due. */
  | { readonly kind: 'paced' };

/**
 * The paced AIMD ramp that releases waiters after a recovery, rather than all at once onto a recovering server.
 * The window of released calls in flight starts at twice the probes and grows by one per success (it doubles per
 * round trip) until a released call fails; then it halves, once per round trip, and grows by one per round trip.
 * Releases are paced, one every smoothed round trip / window (TCP pacing) from a window of 2. While no ramp runs,
 * the window is infinite. `onPaced` is called when a release held back by the pacing is due.
 */
export class RecoveryRamp {
  /** Released calls in flight allowed while a ramp runs; infinite when none runs. */
  private window = Number.POSITIVE_INFINITY;
  private inFlight = 0;
  /** Times the window was halved. */
  private cuts = 0;
  /** The window doubles per round trip until the first failure, then grows by one per round trip. */
  private slowStart = true;
  /** A released call failed in the last ramp (a slow recovery, an overload): the next ramp starts gently. */
  private failedLast = false;
  /** Smoothed round trip of the released calls that succeeded (1/8 per sample, as TCP's SRTT). */
  private rttMs: number | undefined;
  /** The next release, not before: paced at `rttMs / window`. */
  private nextReleaseAt = 0;
  private pacer: AbortController | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly onPaced: () => void,
  ) {}

  /** Whether a ramp runs. */
  get running(): boolean {
    return this.window !== Number.POSITIVE_INFINITY;
  }

  /** The window now (infinite when no ramp runs). */
  get size(): number {
    return this.window;
  }

  /**
   * Whether a released call's failure shrinks the window instead of counting for the breaker: while a ramp
   * runs with its window above 1. At the floor (1), failures count for the breaker again.
   */
  get absorbsFailures(): boolean {
    return this.running && this.window > 1;
  }

  /** A recovery: a ramp starts with a window of `2 × probes` (gently, without slow start, after a failed ramp). */
  start(probes: number): void {
    this.window = 2 * probes;
    this.inFlight = 0;
    this.slowStart = !this.failedLast;
    this.rttMs = undefined; // measured afresh: the recovered server may be slower or faster than before
    this.nextReleaseAt = 0;
  }

  /** Whether the next waiter may go now; on `release`, it is counted in flight. */
  step(now: number): RampStep {
    if (this.inFlight >= this.window) return { kind: 'full' };
    if (this.window >= 2 && now < this.nextReleaseAt) {
      this.paceUntil(this.nextReleaseAt);
      return { kind: 'paced' };
    }
    this.inFlight++;
    this.nextReleaseAt = now + (this.rttMs ?? 0) / this.window;
    return {
      kind: 'release',
      verdict: { kind: 'admitted', probe: false, ramp: true, cuts: this.cuts, releasedAt: now },
    };
  }

  /** A released call's attempt ended: the window grows per success and halves per failure, once per round trip. */
  ended(verdict: Admitted, result: 'success' | 'failure' | 'neutral', now: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    if (result === 'success') {
      this.window += this.slowStart ? 1 : 1 / this.window;
      const rtt = now - (verdict.releasedAt ?? now);
      this.rttMs = this.rttMs === undefined ? rtt : this.rttMs + (rtt - this.rttMs) / 8;
    } else if (result === 'failure' && (verdict.cuts ?? 0) >= this.cuts) {
      // one cut per round trip: calls released before the last cut were sent into the old window
      this.cuts++;
      this.window = Math.max(1, this.window / 2);
      this.slowStart = false;
      this.failedLast = true;
    }
  }

  /** Nobody waits any more: the ramp is over (a drained backlog forgets an earlier failure). */
  stop(): void {
    if (this.running) this.failedLast = false;
    this.window = Number.POSITIVE_INFINITY;
    this.stopPacing();
  }

  /** Stops the pacing timer (the endpoint is being dropped). */
  dispose(): void {
    this.stopPacing();
  }

  /** Calls back at `at` (whole milliseconds: a timer cannot fire earlier), one timer at a time. */
  private paceUntil(at: number): void {
    if (this.pacer) return;
    const pacer = new AbortController();
    this.pacer = pacer;
    this.clock.sleep(Math.ceil(at - this.clock.now()), pacer.signal).then(
      () => {
        if (this.pacer === pacer) this.pacer = undefined;
        this.onPaced();
      },
      () => {},
    );
  }

  private stopPacing(): void {
    this.pacer?.abort(TIMER_STOPPED);
    this.pacer = undefined;
  }
}
