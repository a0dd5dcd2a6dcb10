import { NAIVE_RETRIES_MS } from './naiveRetryAt.js';

/**
 * The last of a naive loop's retries (`NAIVE_RETRIES_MS` from its call's `start`, within `spanMs`) that comes
 * after `now` and no later than `by`; undefined when none does. Pure.
 */
export function naiveRetryBy(start: number, spanMs: number, now: number, by: number): number | undefined {
  let last: number | undefined;
  for (const point of NAIVE_RETRIES_MS) {
    const at = start + point;
    if (point > spanMs || at > by) break;
    if (at > now) last = at;
  }
  return last;
}
