/*
 * Attempt spans are found by their call through a time-local key: the 10-second bucket of the attempt's start,
 * then the call's span id and trace id (`attempts_call`, migration 5). Span and trace ids are random, so an index
 * that starts with them takes each insert to a random page, and every commit then writes one page per attempt
 * (the ingest's cost before); an index that starts with time keeps a commit's inserts on a few pages.
 */

/** The width of a bucket (ms). Part of the index's expression: changing it needs a migration. */
export const ATTEMPT_BUCKET_MS = 10_000;

/** The bucket of an attempt row's start, exactly as `attempts_call` indexes it (queries must use this expression). */
export const attemptBucketSql = (column = 'start_ms'): string => `CAST(${column} / 10000 AS INTEGER)`;

/**
 * Buckets probed for one call at most: an hour. A call's attempts start inside the call, so its buckets from one
 * before its start to one after its end hold them; attempts of a call that ran longer are listed for its first hour.
 */
export const MAX_CALL_BUCKETS = 360;

/** The bucket of a time (ms), as the index computes it. */
export const attemptBucket = (ms: number): number => Math.trunc(ms / ATTEMPT_BUCKET_MS);

/** The first and last bucket that may hold the attempts of a call (one bucket of slack each side, capped). */
export function callBuckets(startMs: number, durationMs: number): { lo: number; hi: number } {
  const lo = attemptBucket(startMs) - 1;
  const hi = attemptBucket(startMs + durationMs) + 1;
  return { lo, hi: Math.min(hi, lo + MAX_CALL_BUCKETS - 1) };
}

/** A call's key and the buckets to probe for its attempts. */
export interface AttemptProbe {
  readonly traceId: string;
  readonly spanId: string;
  readonly lo: number;
  readonly hi: number;
}

/** The probes for a page of calls: one per call key (a key seen twice probes the union of its buckets). */
export function attemptProbes(
  calls: ReadonlyArray<{ traceId: string; spanId: string; startMs: number; durationMs: number }>,
): AttemptProbe[] {
  const byKey = new Map<string, AttemptProbe>();
  for (const c of calls) {
    const key = `${c.traceId}\u0001${c.spanId}`;
    const { lo, hi } = callBuckets(c.startMs, c.durationMs);
    const seen = byKey.get(key);
    const merged = seen ? { lo: Math.min(lo, seen.lo), hi: Math.max(hi, seen.hi) } : { lo, hi };
    byKey.set(key, { traceId: c.traceId, spanId: c.spanId, ...merged });
  }
  return [...byKey.values()];
}
