/** What the ingest accepts in time: nothing older than the retention, nothing later than now + the skew. */
export interface TimeBounds {
  readonly now: number;
  /** Data older than this is dropped by retention anyway: refused at the door. */
  readonly retentionMs: number;
  /** Clocks differ: a point up to this far in the future is taken, beyond it is refused. */
  readonly maxFutureSkewMs: number;
}

/**
 * Why a time is refused (`undefined`: accepted). A far-future point would make every later point of its
 * series look old (and be dropped); a point older than the retention would be deleted at once or counted in
 * a bucket no one reads.
 */
export function timeRefusal(timeMs: number, b: TimeBounds): string | undefined {
  if (timeMs > b.now + b.maxFutureSkewMs)
    return `timestamp more than ${Math.round(b.maxFutureSkewMs / 1000)} s in the future (OTLP_MAX_FUTURE_SKEW_MS)`;
  if (timeMs < b.now - b.retentionMs)
    return `timestamp older than the retention of ${Math.round(b.retentionMs / 86_400_000)} day(s) (RETENTION_DAYS)`;
  return undefined;
}
