/**
 * Time, sleep and randomness, injected so that every decision can run on virtual time in tests and
 * simulations. `sleep` rejects with `signal.reason` when the signal aborts.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** `unref`: the wait must not keep the process alive (background timers such as a breaker's). */
  sleep(ms: number, signal?: AbortSignal, options?: { readonly unref?: boolean }): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

/**
 * The reason to stop a pending `sleep` with. Shared, because `abort()` without a reason builds a new
 * `DOMException` (with its stack) every time, which a timer stopped on every call cannot afford.
 */
export const TIMER_STOPPED: unknown = Object.freeze({ reason: 'timer stopped' });

/**
 * The longest delay one timer takes: 2^31 - 1 ms (~24.8 days). Node fires a longer `setTimeout` at once (with
 * a `TimeoutOverflowWarning`), so a Retry-After of 30 days would retry immediately: longer waits are chained.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The real clock: `Date.now`, `setTimeout`, `Math.random`. A sleep beyond `MAX_TIMER_MS` is waited in chunks of
 * at most that (an infinite one until its signal aborts).
 */
export const realClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep(ms, signal, options) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      let left = ms;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const arm = () => {
        const step = Math.min(left, MAX_TIMER_MS);
        left -= step;
        timer = setTimeout(() => {
          if (left > 0) return arm();
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, step);
        if (options?.unref) timer.unref?.();
      };
      arm();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
