import type { HrTime } from '@opentelemetry/api';

/**
 * Event times (epoch milliseconds, or virtual ones) as `HrTime`: the SDK reads a small number as relative to
 * `performance.now()`, which would mix up the two kinds of time.
 */
export function toHrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
