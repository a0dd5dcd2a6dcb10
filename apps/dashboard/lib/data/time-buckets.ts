import type { BucketPlan } from './primitives';

/*
 * Chart bucketing shared by both backends: the same "nice" steps, aligned to the epoch, so the two give the
 * same points for the same range.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const alignDown = (t: number, res: number): number => Math.floor(t / res) * res;
export const alignUp = (t: number, res: number): number => Math.ceil(t / res) * res;

export const NICE_STEPS: readonly number[] = [
  10_000,
  30_000,
  60_000,
  120_000,
  300_000,
  600_000,
  900_000,
  1_800_000,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
];

/**
 * At most about `maxPoints` buckets of a nice step that is a multiple of `minStepMs`; beyond the largest nice
 * step (ranges longer than `maxPoints` days), whole days, as the embedded store's `planSeries`.
 */
export function planBuckets(from: number, to: number, minStepMs: number, maxPoints: number): BucketPlan {
  const span = Math.max(1, to - from);
  const nice = NICE_STEPS.find((s) => s * maxPoints >= span) ?? alignUp(Math.ceil(span / maxPoints), DAY);
  const step = alignUp(Math.max(nice, minStepMs), minStepMs);
  const origin = alignDown(from, step);
  return { step, origin, count: Math.max(1, Math.ceil((to - origin) / step)) };
}
