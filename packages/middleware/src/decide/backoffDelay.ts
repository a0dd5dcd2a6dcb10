/** `full`: random in [0, d]; `decorrelated`: random in [base, 3 × previous]; `none`: d. */
export type Jitter = 'full' | 'decorrelated' | 'none';

export interface BackoffOptions {
  readonly backoffBaseMs: number;
  readonly backoffFactor: number;
  readonly backoffMaxMs: number;
  readonly jitter: Jitter;
}

/** The un-jittered exponential delay before retry `retry` (1 = the first retry): base × factor^(retry−1), capped. */
export function exponentialDelay(retry: number, options: BackoffOptions): number {
  return Math.min(
    options.backoffMaxMs,
    options.backoffBaseMs * options.backoffFactor ** Math.max(0, retry - 1),
  );
}

/**
 * The delay before retry `retry`, jittered (AWS "Exponential Backoff and Jitter"):
 * - `full`: uniform in [0, d], the least contention;
 * - `decorrelated`: uniform in [base, 3 × previous delay], capped, so that delays wander instead of syncing up;
 * - `none`: d.
 */
export function backoffDelay(
  retry: number,
  previousDelayMs: number,
  options: BackoffOptions,
  random: () => number,
): number {
  const d = exponentialDelay(retry, options);
  switch (options.jitter) {
    case 'none':
      return d;
    case 'full':
      return random() * d;
    case 'decorrelated': {
      const base = options.backoffBaseMs;
      const upper = Math.max(base, 3 * (previousDelayMs || base));
      return Math.min(options.backoffMaxMs, base + random() * (upper - base));
    }
  }
}
