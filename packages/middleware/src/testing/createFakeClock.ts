import type { Clock } from '../Clock.js';

export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing every timer due on the way, in order, letting promises settle between. */
  advance(ms: number): Promise<void>;
  /** Fires timers until none is left (or `limit` were fired), for code that must run to completion. */
  runAll(limit?: number): Promise<void>;
  /** Timers waiting. */
  readonly pending: number;
  /** Sets what `random()` returns next (a constant, or a sequence that repeats its last value). */
  setRandom(values: number | readonly number[]): void;
}

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/** Lets pending promise callbacks (and I/O callbacks) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A virtual clock for tests and simulations: `sleep` waits for `advance`, `now` starts at `start`, and `random`
 * is scripted (default 0.5, which makes full jitter exactly half the delay).
 */
export function createFakeClock(start = 0): FakeClock {
  let now = start;
  let seq = 0;
  let timers: Timer[] = [];
  let randoms: readonly number[] = [0.5];
  let r = 0;

  const fireNext = async (until: number): Promise<boolean> => {
    await settle();
    const next = timers.reduce<Timer | undefined>(
      (min, t) => (!min || t.at < min.at || (t.at === min.at && t.seq < min.seq) ? t : min),
      undefined,
    );
    if (!next || next.at > until) return false;
    timers = timers.filter((t) => t !== next);
    now = Math.max(now, next.at);
    next.resolve();
    await settle();
    return true;
  };

  return {
    now: () => now,
    random: () => randoms[Math.min(r++, randoms.length - 1)]!,
    setRandom(values) {
      randoms = typeof values === 'number' ? [values] : values;
      r = 0;
    },
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer: Timer = {
          at: now + Math.max(0, ms),
          seq: seq++,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          timers = timers.filter((t) => t !== timer);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        timers.push(timer);
      });
    },
    async advance(ms) {
      const until = now + ms;
      while (await fireNext(until)) {}
      now = until;
      await settle();
    },
    async runAll(limit = 10_000) {
      for (let i = 0; i < limit && (await fireNext(Number.POSITIVE_INFINITY)); i++) {}
    },
    get pending() {
      return timers.length;
    },
  };
}
