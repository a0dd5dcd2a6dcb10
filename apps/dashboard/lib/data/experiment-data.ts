import { OUTCOME_VALUE_FAILURE } from '@mcp-resilience/middleware/semconv';
import type { DisagreementCount, ErrorClassCount, ExperimentData } from './experiments-types';
import type { Primitives } from './primitives';
import type { TimeQuery } from './types';
import { byKey, variantTally } from './variant-tally';

/** Examples of disagreements returned at most. */
export const MAX_SHADOW_EXAMPLES_LISTED = 500;

/**
 * The experiments' numbers (canary variants, the shadow classifier) from a backend's primitives, for both
 * backends alike: counts by variant, the call-duration histogram by variant, failed attempts by class, the
 * shadow's disagreements, and examples of them when the backend keeps spans. Shaped for the page in
 * `experiments.ts`.
 */
export async function experimentData(p: Primitives, q: TimeQuery): Promise<ExperimentData> {
  const [calls, retries, avoided, durations, histograms, errors, disagreements, examples] = await Promise.all(
    [
      p.totals('calls', q, ['variant', 'outcome']),
      p.totals('retries', q, ['variant', 'outcome']),
      p.totals('modelRetriesAvoided', q, ['variant']),
      p.totals('callDuration', q, ['variant', 'outcome', 'errorClass']),
      p.histogram(q, ['variant']),
      p.totals('errors', q, ['variant', 'errorClass']),
      p.totals('shadowDisagreements', q, ['variant', 'errorClass', 'errorType', 'shadowClass', 'shadowType']),
      p.shadowExamples ? p.shadowExamples(q, MAX_SHADOW_EXAMPLES_LISTED) : Promise.resolve(null),
    ],
  );
  const tally = variantTally();
  for (const r of calls) tally.call(r.labels.variant ?? '', r.labels.outcome ?? '', r.value);
  for (const r of retries) tally.retry(r.labels.variant ?? '', r.labels.outcome ?? '', r.value);
  for (const r of avoided) tally.avoided(r.labels.variant ?? '', r.value);
  for (const r of durations) {
    if (r.labels.outcome === OUTCOME_VALUE_FAILURE && r.labels.errorClass === 'non_retryable')
      tally.nonRetryable(r.labels.variant ?? '', r.value, r.count);
  }
  for (const h of histograms) tally.latency(h.labels.variant ?? '', h.buckets);
  const byClass = new Map<string, ErrorClassCount>();
  for (const r of errors) {
    const e = { variant: r.labels.variant ?? '', errorClass: r.labels.errorClass ?? '' };
    const k = `${e.variant}\u0001${e.errorClass}`;
    byClass.set(k, { ...e, count: (byClass.get(k)?.count ?? 0) + r.value });
  }
  const bySet = new Map<string, DisagreementCount>();
  for (const r of disagreements) {
    const { variant = '', errorClass = '', errorType = '', shadowClass = '', shadowType = '' } = r.labels;
    const d = { variant, errorClass, errorType, shadowClass, shadowType };
    const k = Object.values(d).join('\u0001');
    bySet.set(k, { ...d, count: (bySet.get(k)?.count ?? 0) + r.value });
  }
  return {
    from: q.from,
    to: q.to,
    variants: tally.result(),
    errors: [...byClass.values()].filter((e) => e.count > 0).sort(byKey),
    disagreements: [...bySet.values()].filter((d) => d.count > 0).sort(byKey),
    examples,
  };
}
