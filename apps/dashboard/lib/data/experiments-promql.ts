import {
  PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS,
  PROM_LABEL_MCP_RESILIENCE_ERROR_TYPE,
  PROM_LABEL_MCP_RESILIENCE_OUTCOME,
  PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS,
  PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE,
  PROM_LABEL_MCP_RESILIENCE_VARIANT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_ERRORS_TOTAL,
  PROM_MCP_RESILIENCE_RETRIES_TOTAL,
  PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
} from '@mcp-resilience/middleware/semconv';

import type { DisagreementCount, ErrorClassCount, ExperimentData } from './experiments-types';
import type { InstantSample, PrometheusApi } from './prometheus-client';
import { totalBy, type Window } from './promql';
import type { TimeQuery } from './types';
import { byKey, variantTally } from './variant-tally';

/*
 * The experiments' PromQL: exact counts over the window (`totalBy`, as every other count of the dashboard),
 * by the variant label. The label is the standard translation of `mcp.resilience.variant`
 * (`mcp_resilience_variant`), not renamed by the collector.
 */

const V = PROM_LABEL_MCP_RESILIENCE_VARIANT;
const NON_RETRYABLE_FAILURE = {
  [PROM_LABEL_MCP_RESILIENCE_OUTCOME]: 'failure',
  [PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS]: 'non_retryable',
};

export const experimentQueries = {
  calls: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_CALLS_TOTAL,
      [V, PROM_LABEL_MCP_RESILIENCE_OUTCOME],
      w.filters,
      w.windowMs,
      w.lookbackMs,
    ),
  retries: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_RETRIES_TOTAL,
      [V, PROM_LABEL_MCP_RESILIENCE_OUTCOME],
      w.filters,
      w.windowMs,
      w.lookbackMs,
    ),
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
      [V, PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS],
      w.filters,
      w.windowMs,
      w.lookbackMs,
    ),
  disagreements: (w: Window) =>
    totalBy(
      PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
      [
        V,
        PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS,
        PROM_LABEL_MCP_RESILIENCE_ERROR_TYPE,
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

  const tally = variantTally();
  for (const s of calls) tally.call(label(s, V), label(s, PROM_LABEL_MCP_RESILIENCE_OUTCOME), value(s));
  for (const s of retries) tally.retry(label(s, V), label(s, PROM_LABEL_MCP_RESILIENCE_OUTCOME), value(s));
  const counts = new Map(nrCount.map((s) => [label(s, V), value(s)]));
  for (const s of nrSum) tally.nonRetryable(label(s, V), value(s), counts.get(label(s, V)) ?? 0);
  for (const s of latency) tally.bucket(label(s, V), label(s, 'le'), value(s));
  const errorCounts: ErrorClassCount[] = errors
    .filter((s) => value(s) > 0)
    .map((s) => ({
      variant: label(s, V),
      errorClass: label(s, PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS),
      count: value(s),
    }));
  const disagreementCounts: DisagreementCount[] = disagreements
    .filter((s) => value(s) > 0)
    .map((s) => ({
      variant: label(s, V),
      errorClass: label(s, PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS),
      errorType: label(s, PROM_LABEL_MCP_RESILIENCE_ERROR_TYPE),
      shadowClass: label(s, PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS),
      shadowType: label(s, PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE),
      count: value(s),
    }));
  return {
    from: q.from,
    to: q.to,
    // Prometheus buckets are cumulative already.
    variants: tally.result((buckets) =>
      [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count })),
    ),
    errors: errorCounts.sort(byKey),
    disagreements: disagreementCounts.sort(byKey),
    examples: null,
  };
}
