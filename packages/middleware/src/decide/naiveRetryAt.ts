/**
 * When a naive retry loop (5 retries, 1, 2, 4, 8, 16 s apart) retries, from its call's start: at +1, +3, +7, +15
 * and +31 s (sooner than it would in fact: its failed requests' own durations push it later).
 */
export const NAIVE_RETRIES_MS: readonly number[] = [1_000, 3_000, 7_000, 15_000, 31_000];

/**
 * The naive loop's next retry after `now` of a call that started at `start` and may last `spanMs` (its limit): the
 * first of `NAIVE_RETRIES_MS` from `start` that is later than `now` and within the span; undefined when none is.
 */
export function naiveRetryAt(start: number, spanMs: number, now: number): number | undefined {
  for (const point of NAIVE_RETRIES_MS) {
    if (point > spanMs) return undefined;
    if (start + point > now) return start + point;
  }
  return undefined;
}
