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

/** The real clock: `Date.now`, `setTimeout`, `Math.random`. */
export const realClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep(ms, signal, options) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      if (options?.unref) timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};
