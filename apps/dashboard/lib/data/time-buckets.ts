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

/** The widest step an export interval widens a chart to (slower exports still read in steps). */
export const MAX_DATA_STEP_MS = 600_000;

/**
 * The finest chart step that holds data exported every `exportMs`: the nice step at least as long (less 10% for
 * the jitter of the measure), so each bucket holds one export, not 0 and then several; at most
 * `MAX_DATA_STEP_MS`. 0 without a measured interval.
 */
export function dataStep(exportMs: number | undefined): number {
  if (exportMs === undefined || !(exportMs > 0)) return 0;
  return NICE_STEPS.find((s) => s >= 0.9 * exportMs && s <= MAX_DATA_STEP_MS) ?? MAX_DATA_STEP_MS;
}

/**
 * At most about `maxPoints` buckets of a nice step that is a multiple of `minStepMs`, and at least `dataStepMs`
 * (`dataStep`, a nice step); beyond the largest nice step (ranges longer than `maxPoints` days), whole days, as
 * the embedded store's `planSeries`.
 */
export function planBuckets(
  from: number,
  to: number,
  minStepMs: number,
  maxPoints: number,
  dataStepMs = 0,
): BucketPlan {
  const span = Math.max(1, to - from);
  const nice = NICE_STEPS.find((s) => s * maxPoints >= span) ?? alignUp(Math.ceil(span / maxPoints), DAY);
  // a data step (a nice step, at least the backend's finest) is kept as it is: aligned up to the finest (20 s for
  // 15 s scrapes) 30 s exports would read 1, 1, then 2 exports a bucket
  const step =
    dataStepMs >= minStepMs ? Math.max(nice, dataStepMs) : alignUp(Math.max(nice, minStepMs), minStepMs);
  const origin = alignDown(from, step);
  return { step, origin, count: Math.max(1, Math.ceil((to - origin) / step)) };
}
