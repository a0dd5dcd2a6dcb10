/*
 * Cumulative → delta conversion per series, with reset detection. Pure: the caller keeps the state (in memory
 * and in the store, so that a restart of the dashboard neither loses nor doubles counts).
 */

export interface SeriesState {
  /** Start of the cumulative sequence (the point's startTimeUnixNano, in ms). */
  readonly start: number;
  /** Time of the last point taken. */
  readonly time: number;
  /** Last cumulative value (sums) or count (histograms). */
  readonly value: number;
  /** Last cumulative sum (histograms). */
  readonly sum: number;
  /** Last cumulative bucket counts (histograms). */
  readonly buckets?: readonly number[];
}

export interface Delta {
  readonly value: number;
  readonly sum: number;
  readonly buckets?: readonly number[];
}

export interface DeltaResult {
  /** What happened since the previous point; `undefined` when nothing is to be counted. */
  readonly delta: Delta | undefined;
  /** The state to keep; `undefined` when the point is ignored (stale, duplicate). */
  readonly next: SeriesState | undefined;
  /** Why, for tests and debugging. */
  readonly reason: 'first' | 'baseline' | 'increase' | 'reset' | 'restart' | 'duplicate' | 'stale';
}

export interface CumulativePoint {
  readonly startMs: number;
  readonly timeMs: number;
  /** Sum value, or histogram count. */
  readonly value: number;
  /** Histogram sum (0 for sums). */
  readonly sum?: number;
  readonly buckets?: readonly number[];
}

const sameBounds = (a: readonly number[] | undefined, b: readonly number[] | undefined) =>
  (a?.length ?? 0) === (b?.length ?? 0);

/**
 * One cumulative point against the previous state of its series.
 * - First point of a series: counted in full when its sequence started after `baselineBefore` (the store's
 *   creation), else taken as a baseline (its history predates the store; counting it would be a spike).
 * - A new start time (agent restarted) or a value, histogram sum or bucket that went down (reset): counted
 *   in full (never a negative delta).
 * - A point not newer than the last one (an exporter retry, a duplicate from two collectors): ignored.
 */
export function cumulativeToDelta(
  prev: SeriesState | undefined,
  point: CumulativePoint,
  baselineBefore: number,
): DeltaResult {
  const sum = point.sum ?? 0;
  const whole: Delta = { value: point.value, sum, buckets: point.buckets };
  const state: SeriesState = {
    start: point.startMs,
    time: point.timeMs,
    value: point.value,
    sum,
    buckets: point.buckets,
  };
  if (!prev) {
    const fresh = point.startMs > 0 && point.startMs >= baselineBefore;
    return fresh
      ? { delta: whole, next: state, reason: 'first' }
      : { delta: undefined, next: state, reason: 'baseline' };
  }
  if (point.startMs !== prev.start) {
    if (point.startMs < prev.start) return { delta: undefined, next: undefined, reason: 'stale' };
    return { delta: whole, next: state, reason: 'restart' };
  }
  if (point.timeMs <= prev.time) return { delta: undefined, next: undefined, reason: 'duplicate' };
  // A count, sum or bucket that went down: the sequence restarted without a new start time (a reset).
  if (point.value < prev.value || sum < prev.sum || !sameBounds(point.buckets, prev.buckets)) {
    return { delta: whole, next: state, reason: 'reset' };
  }
  let buckets: number[] | undefined;
  if (point.buckets) {
    buckets = point.buckets.map((b, i) => b - (prev.buckets?.[i] ?? 0));
    if (buckets.some((b) => b < 0)) return { delta: whole, next: state, reason: 'reset' };
  }
  const delta: Delta = { value: point.value - prev.value, sum: sum - prev.sum, buckets };
  return { delta, next: state, reason: 'increase' };
}
