import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  ATTR_MCP_RESILIENCE_ERROR_CLASS,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_SHADOW_CLASS,
  ATTR_MCP_RESILIENCE_SHADOW_TYPE,
  ATTR_MCP_RESILIENCE_VARIANT,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
} from '@mcp-resilience/middleware/semconv';
import type { Attrs, HistogramPoint, MetricsRequest, NumberPoint } from '../otlp/model';
import { M, METRIC_IDS } from '../store/metric-ids';
import { cumulativeToDelta, type Delta, type SeriesState } from './delta';
import { exportCadence } from './export-cadence';
import { type IngestContext, resourceIdentity, stableKey, text } from './ingest-context';
import type {
  BreakerObservation,
  DimLabels,
  FactDelta,
  InstanceSeen,
  MetricBatch,
  SeriesUpdate,
} from './records';
import { Rejections, shown } from './rejections';
import { seriesKeys } from './series-key';
import { SeriesRoom } from './series-room';
import { timeRefusal } from './time-bounds';

const NO_EXPERIMENT_LABELS = { variant: '', bucketLower: '', bucketLe: '', shadowClass: '', shadowType: '' };

function dimLabels(service: string, metricId: number, a: Attrs, ctx: IngestContext): DimLabels {
  const shadow = metricId === M.shadowDisagreements;
  return {
    ...NO_EXPERIMENT_LABELS,
    service,
    server: ctx.label('server', text(a[ATTR_MCP_RESILIENCE_SERVER])),
    method: ctx.label('method', text(a[ATTR_MCP_METHOD_NAME])),
    tool: ctx.label('tool', text(a[ATTR_GEN_AI_TOOL_NAME])),
    outcome: shadow ? '' : ctx.label('outcome', text(a[ATTR_MCP_RESILIENCE_OUTCOME])),
    errorClass: ctx.label('error_class', text(a[ATTR_MCP_RESILIENCE_ERROR_CLASS])),
    // the classifier's type; on the MCP conventions' operation duration, `error.type` in its OTel meaning
    errorType: ctx.label(
      'error_type',
      text(a[metricId === M.operationDuration ? ATTR_ERROR_TYPE : ATTR_MCP_RESILIENCE_ERROR_TYPE]),
    ),
    variant: metricId === M.transitions ? '' : ctx.label('variant', text(a[ATTR_MCP_RESILIENCE_VARIANT])),
    shadowClass: shadow ? ctx.label('error_class', text(a[ATTR_MCP_RESILIENCE_SHADOW_CLASS])) : '',
    shadowType: shadow ? ctx.label('error_type', text(a[ATTR_MCP_RESILIENCE_SHADOW_TYPE])) : '',
    extra:
      metricId === M.transitions
        ? `${ctx.label('state', text(a[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE]))}>${ctx.label('state', text(a[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE]))}`
        : '',
  };
}

/**
 * Per-bucket counts of a call-duration delta, for latency quantiles, each with its bounds (`bucketLower`,
 * `bucketLe`); zero buckets are not stored, so each bucket names its own lower bound.
 */
function bucketFacts(p: HistogramPoint, labels: DimLabels, buckets: readonly number[]): FactDelta[] {
  const facts: FactDelta[] = [];
  for (const [i, n] of buckets.entries()) {
    if (!(n > 0)) continue;
    facts.push({
      metric: M.callDurationBucket,
      timeMs: p.timeMs,
      labels: {
        ...labels,
        bucketLower: i === 0 ? '' : String(p.bounds[i - 1]),
        bucketLe: i < p.bounds.length ? String(p.bounds[i]) : '+Inf',
      },
      value: n,
      count: 0,
    });
  }
  return facts;
}

/** A level point (`circuit_breaker.waiting`, never negative: refused before): value, count = 1, extra = instance. */
function levelFact(service: string, instance: string, p: NumberPoint, ctx: IngestContext): FactDelta {
  const a = p.attributes;
  return {
    metric: M.breakerWaiting,
    timeMs: p.timeMs,
    labels: {
      ...NO_EXPERIMENT_LABELS,
      service,
      server: ctx.label('server', text(a[ATTR_MCP_RESILIENCE_SERVER])),
      method: '',
      tool: ctx.label('tool', text(a[ATTR_GEN_AI_TOOL_NAME])),
      outcome: '',
      errorClass: '',
      errorType: '',
      extra: instance,
    },
    value: p.value,
    count: 1,
  };
}

/** Beyond 2^53 a count is no longer exact (and sums of such values overflow): refused. */
const MAX_VALUE = Number.MAX_SAFE_INTEGER;

/** Why a contract point's values are refused (negative or huge counts, sums, buckets), or undefined. */
function valueRefusal(
  name: string,
  isHistogram: boolean,
  p: NumberPoint | HistogramPoint,
): string | undefined {
  if (isHistogram) {
    const h = p as HistogramPoint;
    if (h.sum < 0) return `${name}: negative histogram sum`;
    if (h.buckets.some((b) => b < 0)) return `${name}: negative histogram bucket count`;
    if (h.count > MAX_VALUE || h.sum > MAX_VALUE) return `${name}: histogram count or sum beyond 2^53`;
    if (h.buckets.some((b) => b > MAX_VALUE)) return `${name}: histogram bucket count beyond 2^53`;
    return undefined;
  }
  const v = (p as NumberPoint).value;
  if (v < 0) return `${name}: negative value for a counter`;
  return v > MAX_VALUE ? `${name}: counter value beyond 2^53` : undefined;
}

/**
 * Maps an OTLP metrics request to facts, cumulative-series updates and breaker observations. Contract counters
 * and histograms become deltas (cumulative ones against the series' state); the breaker state gauge becomes
 * observations; other metrics are ignored. Refused, with the reason (OTLP partial success): points outside the
 * time bounds, non-monotonic sums for counters, negative or huge (beyond 2^53) counter values or histogram
 * counts/sums/buckets, negative levels, a start time after the point's time, and points of new cumulative series
 * beyond `ctx.seriesRoom` or `ctx.seriesBytesRoom`.
 * A refused point never touches its series' state.
 */
export function mapMetrics(request: MetricsRequest, ctx: IngestContext): MetricBatch {
  const rejections = new Rejections();
  const instances: InstanceSeen[] = [];
  const facts: FactDelta[] = [];
  const breakers: BreakerObservation[] = [];
  const updated = new Map<string, SeriesState>();
  const room = new SeriesRoom(ctx);
  for (const rm of request.resources) {
    const { service, instance } = resourceIdentity(rm.resource, ctx);
    const keyOf = seriesKeys(stableKey(rm.resource));
    const seen = exportCadence(rm, keyOf, (k) => (updated.get(k) ?? ctx.seriesState(k))?.time);
    if (seen) instances.push({ service, instance, ...seen });
    for (const sm of rm.scopes) {
      for (const metric of sm.metrics) {
        const isBreakerGauge =
          metric.type === 'gauge' && metric.name === METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE;
        const id = METRIC_IDS.get(metric.name);
        // A level (gauge or up-down counter), not a count: its mean per bucket and instance.
        const isLevel = metric.type !== 'histogram' && id === M.breakerWaiting;
        const metricId = metric.type === 'gauge' && !isLevel ? undefined : id;
        if (!isBreakerGauge && metricId === undefined) continue;
        for (const p of metric.points as ReadonlyArray<NumberPoint | HistogramPoint>) {
          const late = timeRefusal(p.timeMs, ctx.bounds);
          if (late) {
            rejections.add(1, `${metric.name}: ${late}`);
            continue;
          }
          if (isBreakerGauge) {
            if ((p as NumberPoint).value !== 1) continue;
            const state = ctx.label('state', text(p.attributes[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE]));
            if (state === '') continue;
            breakers.push({
              service,
              instance,
              server: ctx.label('server', text(p.attributes[ATTR_MCP_RESILIENCE_SERVER])),
              tool: ctx.label('tool', text(p.attributes[ATTR_GEN_AI_TOOL_NAME])),
              state,
              at: p.timeMs,
            });
            continue;
          }
          if (metricId === undefined) continue;
          if (isLevel) {
            if ((p as NumberPoint).value < 0) {
              rejections.add(1, `${metric.name}: negative level (calls waiting cannot be below 0)`);
              continue;
            }
            facts.push(levelFact(service, instance, p as NumberPoint, ctx));
            continue;
          }
          if (metric.type === 'gauge') continue;
          if (metric.type === 'sum' && !metric.monotonic) {
            // A counter of the contract never goes down: a non-monotonic sum's deltas could be negative.
            rejections.add(1, `${metric.name}: not a monotonic sum (the contract defines a Counter)`);
            continue;
          }
          const isHistogram = metric.type === 'histogram';
          const bad = valueRefusal(metric.name, isHistogram, p);
          if (bad) {
            rejections.add(1, bad);
            continue;
          }
          const value = isHistogram ? (p as HistogramPoint).count : (p as NumberPoint).value;
          const sum = isHistogram ? (p as HistogramPoint).sum : 0;
          const buckets = isHistogram ? (p as HistogramPoint).buckets : undefined;
          let delta: Delta | undefined;
          if (metric.temporality !== 1) {
            if (p.startMs > p.timeMs) {
              rejections.add(1, `${metric.name}: startTimeUnixNano after timeUnixNano`);
              continue;
            }
            const key = keyOf(metric.name, sm.scope, p.attributes);
            let prev = updated.get(key) ?? ctx.seriesState(key);
            if (!prev) {
              // A new series: its state is kept (retention + 1 h), so their number and bytes are capped.
              const full = room.take(shown(metric.name), key, buckets);
              if (full) {
                rejections.add(1, full);
                continue;
              }
            }
            // A state from a time beyond the bounds (stored before they existed) would stop the series for good.
            if (prev && prev.time > ctx.bounds.now + ctx.bounds.maxFutureSkewMs) prev = undefined;
            const r = cumulativeToDelta(
              prev,
              { startMs: p.startMs, timeMs: p.timeMs, value, sum, buckets },
              ctx.baselineBefore,
            );
            if (r.next) updated.set(key, r.next);
            delta = r.delta;
          } else {
            delta = { value, sum, buckets };
          }
          if (!delta || (delta.value === 0 && delta.sum === 0)) continue;
          const labels = dimLabels(service, metricId, p.attributes, ctx);
          facts.push(
            isHistogram
              ? { metric: metricId, timeMs: p.timeMs, labels, value: delta.sum, count: delta.value }
              : { metric: metricId, timeMs: p.timeMs, labels, value: delta.value, count: 0 },
          );
          if (metricId === M.callDuration && delta.buckets)
            facts.push(...bucketFacts(p as HistogramPoint, labels, delta.buckets));
        }
      }
    }
  }
  const series: SeriesUpdate[] = [...updated].map(([key, state]) => ({ key, state }));
  return { instances, facts, series, breakers, points: request.points, rejected: rejections.result() };
}
