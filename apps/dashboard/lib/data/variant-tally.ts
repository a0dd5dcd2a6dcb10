import { OUTCOME_VALUE_FAILURE, OUTCOME_VALUE_SUCCESS } from '@mcp-resilience/middleware/semconv';
import type { VariantCounts } from './experiments-types';
import { roundSeconds } from './metrics-source';

/**
 * Adds up the per-variant counts of `VariantCounts` as either backend reads them (rows or samples by variant and
 * outcome); calls without a variant ('') are left out.
 */
export function variantTally() {
  const variants = new Map<string, VariantCounts & { buckets: Map<number, number> }>();
  const of = (variant: string) => {
    let v = variants.get(variant);
    if (!v) {
      v = {
        variant,
        calls: { total: 0, success: 0, failure: 0, rejected: 0 },
        retries: { total: 0, successful: 0 },
        nonRetryable: { sumSeconds: 0, count: 0 },
        latency: [],
        buckets: new Map(),
      };
      variants.set(variant, v);
    }
    return v;
  };
  return {
    call(variant: string, outcome: string, n: number) {
      if (variant === '' || n === 0) return;
      const { calls } = of(variant);
      calls.total += n;
      if (outcome === OUTCOME_VALUE_SUCCESS) calls.success += n;
      else if (outcome === OUTCOME_VALUE_FAILURE) calls.failure += n;
      else calls.rejected += n;
    },
    retry(variant: string, outcome: string, n: number) {
      if (variant === '' || n === 0) return;
      const { retries } = of(variant);
      retries.total += n;
      if (outcome === OUTCOME_VALUE_SUCCESS) retries.successful += n;
    },
    /** Durations of non-retryable failures, for variants that made calls. */
    nonRetryable(variant: string, sumSeconds: number, count: number) {
      const v = variants.get(variant);
      if (!v) return;
      v.nonRetryable.sumSeconds += sumSeconds;
      v.nonRetryable.count += count;
    },
    /** A call-duration bucket (`le` in seconds, `+Inf` allowed), for variants that made calls. */
    bucket(variant: string, le: string, n: number) {
      const v = variants.get(variant);
      if (!v) return;
      const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
      v.buckets.set(bound, (v.buckets.get(bound) ?? 0) + n);
    },
    /** The variants by name, their buckets turned into a cumulative histogram by `latency`. */
    result(latency: (buckets: Map<number, number>) => Array<{ le: number; count: number }>): VariantCounts[] {
      return [...variants.values()]
        .map(({ buckets, ...v }) => ({
          ...v,
          nonRetryable: { ...v.nonRetryable, sumSeconds: roundSeconds(v.nonRetryable.sumSeconds) },
          latency: latency(buckets),
        }))
        .sort((a, b) => (a.variant < b.variant ? -1 : 1));
    },
  };
}

/** A stable order for comparing backends: by every string field. */
export function byKey<T extends object>(a: T, b: T): number {
  const ka = Object.values(a)
    .filter((x) => typeof x === 'string')
    .join('\u0001');
  const kb = Object.values(b)
    .filter((x) => typeof x === 'string')
    .join('\u0001');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
