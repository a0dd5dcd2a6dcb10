import { OUTCOME_VALUE_FAILURE, OUTCOME_VALUE_SUCCESS } from '@mcp-resilience/middleware/semconv';
import type { VariantCounts } from './experiments-types';
import { roundSeconds } from './metrics-source';

/**
 * Adds up the per-variant counts of `VariantCounts` from the primitives' rows by variant and outcome; calls
 * without a variant ('') are left out.
 */
export function variantTally() {
  const variants = new Map<string, VariantCounts>();
  const of = (variant: string) => {
    let v = variants.get(variant);
    if (!v) {
      v = emptyCounts(variant);
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
    /** Repeats answered from the variant's negative cache. */
    avoided(variant: string, n: number) {
      if (variant === '' || n === 0) return;
      const v = of(variant);
      variants.set(variant, { ...v, avoided: v.avoided + n });
    },
    /** Durations of non-retryable failures, for variants that made calls. */
    nonRetryable(variant: string, sumSeconds: number, count: number) {
      const v = variants.get(variant);
      if (!v) return;
      v.nonRetryable.sumSeconds += sumSeconds;
      v.nonRetryable.count += count;
    },
    /** The call-duration histogram (cumulative by `le`), for variants that made calls. */
    latency(variant: string, buckets: VariantCounts['latency']) {
      const v = variants.get(variant);
      if (v) variants.set(variant, { ...v, latency: buckets });
    },
    /** The variants by name. */
    result(): VariantCounts[] {
      return [...variants.values()]
        .map((v) => ({
          ...v,
          nonRetryable: { ...v.nonRetryable, sumSeconds: roundSeconds(v.nonRetryable.sumSeconds) },
        }))
        .sort((a, b) => (a.variant < b.variant ? -1 : 1));
    },
  };
}

function emptyCounts(variant: string): VariantCounts {
  return {
    variant,
    calls: { total: 0, success: 0, failure: 0, rejected: 0 },
    retries: { total: 0, successful: 0 },
    avoided: 0,
    nonRetryable: { sumSeconds: 0, count: 0 },
    latency: [],
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
