import {
  PROM_LABEL_ERROR_CLASS,
  PROM_LABEL_ERROR_TYPE,
  PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS,
  PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE,
  PROM_LABEL_MCP_RESILIENCE_VARIANT,
  PROM_LABEL_OUTCOME,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_ERRORS_TOTAL,
  PROM_MCP_RESILIENCE_RETRIES_TOTAL,
  PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
} from '@mcp-resilience/middleware/semconv';
import { byKey } from './experiments-embedded';
import type { DisagreementCount, ErrorClassCount, ExperimentData, VariantCounts } from './experiments-types';
import { roundSeconds } from './metrics-source';
import type { InstantSample, PrometheusApi } from './prometheus-client';
import { totalBy, type Window } from './promql';
import type { TimeQuery } from './types';

/*
 * The experiments' PromQL: exact counts over the window (`totalBy`, as every other count of the dashboard),
 * by the variant label. The label is the standard translation of `mcp.resilience.variant`
 * (`mcp_resilience_variant`), not renamed by the collector.
 */

const V = PROM_LABEL_MCP_RESILIENCE_VARIANT;
const NON_RETRYABLE_FAILURE = { [PROM_LABEL_OUTCOME]: 'failure', [PROM_LABEL_ERROR_CLASS]: 'non_retryable' };

export const experimentQueries = {
  calls: (w: Window) =>
    totalBy(PROM_MCP_RESILIENCE_CALLS_TOTAL, [V, PROM_LABEL_OUTCOME], w.filters, w.windowMs, w.lookbackMs),
  retries: (w: Window) =>
    totalBy(PROM_MCP_RESILIENCE_RETRIES_TOTAL, [V, PROM_LABEL_OUTCOME], w.filters, w.windowMs, w.lookbackMs),
  nonRetryableSum: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
      [V],
      w.filters,
      w.windowMs,
      w.lookbackMs,
      NON_RETRYABLE_FAILURE,
    ),
  nonRetryableCount: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
      [V],
      w.filters,
      w.windowMs,
      w.lookbackMs,
      NON_RETRYABLE_FAILURE,
    ),
  latency: (w: Window) =>
    totalBy(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET, [V, 'le'], w.filters, w.windowMs, w.lookbackMs),
  errors: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_ERRORS_TOTAL,
      [V, PROM_LABEL_ERROR_CLASS],
      w.filters,
      w.windowMs,
      w.lookbackMs,
    ),
  disagreements: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
      [
        V,
        PROM_LABEL_ERROR_CLASS,
        PROM_LABEL_ERROR_TYPE,
        PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS,
        PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE,
      ],
      w.filters,
      w.windowMs,
      w.lookbackMs,
    ),
};

const label = (s: InstantSample, name: string) => s.labels[name] ?? '';
const value = (s: InstantSample) => (Number.isFinite(s.value) ? s.value : 0);

/** The experiments' numbers from Prometheus (no examples: spans are not there). */
export async function prometheusExperimentData(
  api: PrometheusApi,
  q: TimeQuery,
  lookbackMs: number,
): Promise<ExperimentData> {
  const w: Window = { filters: q.filters, windowMs: q.to - q.from, lookbackMs };
  const [calls, retries, nrSum, nrCount, latency, errors, disagreements] = (await Promise.all(
    [
      experimentQueries.calls,
      experimentQueries.retries,
      experimentQueries.nonRetryableSum,
      experimentQueries.nonRetryableCount,
      experimentQueries.latency,
      experimentQueries.errors,
      experimentQueries.disagreements,
    ].map((build) => api.query(build(w), q.to)),
  )) as [
    InstantSample[],
    InstantSample[],
    InstantSample[],
    InstantSample[],
    InstantSample[],
    InstantSample[],
    InstantSample[],
  ];

  const variants = new Map<string, VariantCounts & { buckets: Map<number, number> }>();
  const of = (name: string) => {
    let v = variants.get(name);
    if (!v) {
      v = {
        variant: name,
        calls: { total: 0, success: 0, failure: 0, rejected: 0 },
        retries: { total: 0, successful: 0 },
        nonRetryable: { sumSeconds: 0, count: 0 },
        latency: [],
        buckets: new Map(),
      };
      variants.set(name, v);
    }
    return v;
  };
  for (const s of calls) {
    const name = label(s, V);
    if (name === '' || value(s) === 0) continue;
    const v = of(name);
    const outcome = label(s, PROM_LABEL_OUTCOME);
    v.calls.total += value(s);
    if (outcome === 'success') v.calls.success += value(s);
    else if (outcome === 'failure') v.calls.failure += value(s);
    else v.calls.rejected += value(s);
  }
  for (const s of retries) {
    const name = label(s, V);
    if (name === '' || value(s) === 0) continue;
    const v = of(name);
    v.retries.total += value(s);
    if (label(s, PROM_LABEL_OUTCOME) === 'success') v.retries.successful += value(s);
  }
  for (const s of nrSum)
    if (label(s, V) !== '' && variants.has(label(s, V))) of(label(s, V)).nonRetryable.sumSeconds += value(s);
  for (const s of nrCount)
    if (label(s, V) !== '' && variants.has(label(s, V))) of(label(s, V)).nonRetryable.count += value(s);
  for (const s of latency) {
    const name = label(s, V);
    if (name === '' || !variants.has(name)) continue;
    const le = label(s, 'le') === '+Inf' ? Number.POSITIVE_INFINITY : Number(label(s, 'le'));
    const b = of(name).buckets;
    b.set(le, (b.get(le) ?? 0) + value(s));
  }
  const errorCounts: ErrorClassCount[] = errors
    .filter((s) => value(s) > 0)
    .map((s) => ({ variant: label(s, V), errorClass: label(s, PROM_LABEL_ERROR_CLASS), count: value(s) }));
  const disagreementCounts: DisagreementCount[] = disagreements
    .filter((s) => value(s) > 0)
    .map((s) => ({
      variant: label(s, V),
      errorClass: label(s, PROM_LABEL_ERROR_CLASS),
      errorType: label(s, PROM_LABEL_ERROR_TYPE),
      shadowClass: label(s, PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS),
      shadowType: label(s, PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE),
      count: value(s),
    }));
  return {
    from: q.from,
    to: q.to,
    variants: [...variants.values()]
      .map(({ buckets, ...v }) => ({
        ...v,
        nonRetryable: { ...v.nonRetryable, sumSeconds: roundSeconds(v.nonRetryable.sumSeconds) },
        latency: [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count })),
      }))
      .sort((a, b) => (a.variant < b.variant ? -1 : 1)),
    errors: errorCounts.sort(byKey),
    disagreements: disagreementCounts.sort(byKey),
    examples: null,
  };
}
