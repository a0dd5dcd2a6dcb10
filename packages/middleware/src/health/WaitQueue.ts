import { type Clock, TIMER_STOPPED } from '../Clock.js';
import type { GateVerdict } from './GateVerdict.js';

/** One call waiting in a `WaitQueue`: its limit, its one timer, its settlement. */
export interface Waiter {
  /** The last moment at which the call can still use a release. */
  readonly limitAt: number;
  /** Not sent yet (its first attempt): preferred as a probe, so that failed calls keep their attempts. */
  readonly fresh: boolean;
  /** Its limit is the default one (the call has none of its own): the gate's bet asks for better odds. */
  readonly defaultLimit: boolean;
  /** Settles the call's wait once (later verdicts are ignored), leaving its queue, timer and signal. */
  settle(verdict: GateVerdict): void;
}

/** What a waiter's timer settles it with when it fires. */
export type OnTimer = (waiter: Waiter) => GateVerdict;

interface Entry extends Waiter {
  owner: WaitQueue;
  arm(at: number, onTimer: OnTimer): void;
}

/**
 * Calls waiting, oldest first, each with one timer (its limit, or a hold's end) and its caller's signal: an
 * abort settles it at once (`aborted`) and its listener is removed whatever settles it. Plain mechanics: which
 * waiter goes, and when, is the gate's policy.
 */
export class WaitQueue {
  private readonly list: Entry[] = [];

  constructor(private readonly clock: Clock) {}

  get length(): number {
    return this.list.length;
  }

  /** The waiters, oldest first (a copy: settling one while iterating is safe). */
  waiters(): readonly Waiter[] {
    return [...this.list];
  }

  /** The oldest waiter, if any. */
  first(): Waiter | undefined {
    return this.list[0];
  }

  /** The oldest waiter not sent yet, else the oldest. */
  firstFresh(): Waiter | undefined {
    return this.list.find((w) => w.fresh) ?? this.list[0];
  }

  /** Queues a call until `armAt` (its timer then settles it with `onTimer`): resolves with its verdict. */
  add(
    limitAt: number,
    fresh: boolean,
    defaultLimit: boolean,
    signal: AbortSignal | undefined,
    armAt: number,
    onTimer: OnTimer,
  ): Promise<GateVerdict> {
    if (signal?.aborted) return Promise.resolve({ kind: 'aborted', reason: signal.reason });
    const { clock } = this;
    return new Promise<GateVerdict>((resolve) => {
      let timer: AbortController | undefined;
      let done = false;
      const onAbort = () => entry.settle({ kind: 'aborted', reason: signal?.reason });
      const entry: Entry = {
        limitAt,
        fresh,
        defaultLimit,
        owner: this,
        settle(verdict) {
          if (done) return;
          done = true;
          entry.owner.remove(entry);
          timer?.abort(TIMER_STOPPED);
          signal?.removeEventListener('abort', onAbort);
          resolve(verdict);
        },
        arm(at, fire) {
          timer?.abort(TIMER_STOPPED);
          const mine = new AbortController();
          timer = mine;
          clock.sleep(Math.max(0, at - clock.now()), mine.signal).then(
            () => {
              if (timer === mine) entry.settle(fire(entry));
            },
            () => {},
          );
        },
      };
      this.list.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.arm(armAt, onTimer);
    });
  }

  /** Moves `waiter` (of another queue) to the back of this one, its timer re-armed for `armAt`. */
  adopt(waiter: Waiter, armAt: number, onTimer: OnTimer): void {
    const entry = waiter as Entry;
    entry.owner.remove(entry);
    entry.owner = this;
    this.list.push(entry);
    entry.arm(armAt, onTimer);
  }

  private remove(entry: Entry): void {
    const i = this.list.indexOf(entry);
    if (i >= 0) this.list.splice(i, 1);
  }
}
