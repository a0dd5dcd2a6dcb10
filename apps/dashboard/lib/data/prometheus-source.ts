import { ERROR_CLASSES } from '@mcp-resilience/middleware';
import {
  OUTCOME_VALUE_FAILURE,
  OUTCOME_VALUE_REJECTED,
  OUTCOME_VALUE_SUCCESS,
  PROM_LABEL_ERROR_CLASS,
  PROM_LABEL_ERROR_TYPE,
  PROM_LABEL_FROM_STATE,
  PROM_LABEL_GEN_AI_TOOL_NAME,
  PROM_LABEL_MCP_SERVER,
  PROM_LABEL_OUTCOME,
  PROM_LABEL_STATE,
  PROM_LABEL_TO_STATE,
} from '@mcp-resilience/middleware/semconv';
import { alignDown, alignUp, planSeries, type SeriesPlan, type Tier } from '../store/tiers';
import {
  type AggregatedBreaker,
  aggregateBreakers,
  asState,
  breakerSummaries,
  compareTiles,
  type InstanceBreakerState,
} from './breakers';
import { prometheusExperimentData } from './experiments-promql';
import type { ExperimentData } from './experiments-types';
import { MAX_TRANSITIONS, type MetricsSource, roundSeconds } from './metrics-source';
import type { InstantSample, PrometheusApi, RangeSeries } from './prometheus-client';
import * as promql from './promql';
import type {
  AgentInstance,
  BreakdownBy,
  BreakdownRow,
  BreakerStateName,
  BreakerSummary,
  BreakerTile,
  BreakerTimelineRow,
  BreakerTransition,
  CallRow,
  CallsPoint,
  Dimensions,
  Filters,
  Headline,
  KeyedPoint,
  RatioPoint,
  RetryTotals,
  Series,
  Summary,
  TimelineSegment,
  TimeQuery,
} from './types';

export interface PrometheusSourceOptions {
  readonly api: PrometheusApi;
  /** A breaker whose instances all stopped reporting for this long is no longer shown at all. */
  readonly staleMs: number;
  /** The scrape interval of the resilience metrics: the finest step any query uses. */
  readonly scrapeIntervalMs: number;
  readonly maxPoints?: number;
  readonly now?: () => number;
}

const SUCCESS = OUTCOME_VALUE_SUCCESS;
const FAILURE = OUTCOME_VALUE_FAILURE;
const REJECTED = OUTCOME_VALUE_REJECTED;
const SERVER = PROM_LABEL_MCP_SERVER;
const TOOL = PROM_LABEL_GEN_AI_TOOL_NAME;
/** How far before a window the value a window's count starts from is looked for (instant queries). */
const TOTAL_LOOKBACK_MS = 3_600_000;
/** The same for each step of a range query (cheaper: every step looks back). */
const MIN_STEP_LOOKBACK_MS = 300_000;
/** Range queries get points every 10 s at the finest (as the embedded store's finest tier). */
const SERIES_MIN_STEP_MS = 10_000;
const MAX_TRANSITION_STEPS = 1000;
const MAX_INSTANCE_STEPS = 1000;
const MAX_TIMELINE_STEPS = 1000;
const SINCE_CACHE_MS = 60_000;
const MAX_SINCE_CACHE = 100_000;

const label = (s: { labels: Readonly<Record<string, string>> }, name: string): string => s.labels[name] ?? '';
const finite = (v: number): number => (Number.isFinite(v) ? v : 0);

function sumWhere(samples: readonly InstantSample[], pick: (s: InstantSample) => boolean = () => true) {
  let total = 0;
  for (const s of samples) if (pick(s)) total += finite(s.value);
  return total;
}

/** The labels of a series minus the metric name and the given ones, as a key. */
function seriesKey(labels: Readonly<Record<string, string>>, without: readonly string[] = []): string {
  return Object.keys(labels)
    .filter((k) => k !== '__name__' && !without.includes(k))
    .sort()
    .map((k) => `${k}\u0001${labels[k]}`)
    .join('\u0002');
}

/**
 * `MetricsSource` over a Prometheus-compatible API (Prometheus, Mimir, Thanos, VictoriaMetrics) in PromQL
 * (every query is a named builder in `promql.ts`). Stateless: any number of dashboards can read the same
 * Prometheus. Spans are not in Prometheus, so `recentCalls` is empty and the Calls page says where traces are.
 */
export class PrometheusSource implements MetricsSource {
  readonly kind = 'prometheus' as const;
  readonly capabilities = { traces: false, push: false } as const;
  private readonly now: () => number;
  private readonly resolutionMs: number;
  /** Per state series (all its labels): since when it has been 1, and when that was computed. */
  private readonly sinceCache = new Map<string, { since: number; at: number }>();

  constructor(private readonly options: PrometheusSourceOptions) {
    this.now = options.now ?? Date.now;
    this.resolutionMs = Math.max(1000, options.scrapeIntervalMs);
  }

  /** Experiments (canary variants, shadow classifier): `lib/data/experiments-promql.ts`. */
  experimentData(q: TimeQuery): Promise<ExperimentData> {
    return prometheusExperimentData(this.options.api, q, TOTAL_LOOKBACK_MS);
  }

  private instant(expr: string, timeMs: number): Promise<InstantSample[]> {
    return this.options.api.query(expr, timeMs);
  }

  /** A window ending at `q.to`. */
  private window(q: TimeQuery): promql.Window {
    return { filters: q.filters, windowMs: q.to - q.from, lookbackMs: TOTAL_LOOKBACK_MS };
  }

  /** Buckets as the embedded store plans them (10 s at the finest), never finer than the scrape interval. */
  private plan(q: TimeQuery, maxPoints?: number): SeriesPlan {
    const res = Math.max(SERIES_MIN_STEP_MS, alignUp(this.resolutionMs, SERIES_MIN_STEP_MS));
    const tiers: Tier[] = [{ id: 0, res, keepMs: Number.POSITIVE_INFINITY }];
    return planSeries(q.from, q.to, this.now(), tiers, maxPoints ?? this.options.maxPoints ?? 200);
  }

  /**
   * A count per bucket: bucket k ([origin + k*step, origin + (k+1)*step)) is the step's exact increase,
   * evaluated at the bucket's end. Calls `add(k, series)` for every non-zero value.
   */
  private async buckets(
    build: (w: promql.Window) => string,
    q: TimeQuery,
    plan: SeriesPlan,
    add: (k: number, labels: Readonly<Record<string, string>>, value: number) => void,
  ): Promise<void> {
    const w: promql.Window = {
      filters: q.filters,
      windowMs: plan.step,
      lookbackMs: Math.max(MIN_STEP_LOOKBACK_MS, 4 * this.resolutionMs, plan.step),
    };
    const start = plan.origin + plan.step;
    const end = plan.origin + plan.count * plan.step;
    const series: RangeSeries[] = await this.options.api.queryRange(build(w), start, end, plan.step);
    for (const s of series) {
      for (const [t, v] of s.points) {
        const k = Math.round((t - start) / plan.step);
        if (k < 0 || k >= plan.count || !Number.isFinite(v) || v === 0) continue;
        add(k, s.labels, v);
      }
    }
  }

  private async countsOf(q: TimeQuery) {
    const w = this.window(q);
    const [calls, retries, wasted, mttfSum, mttfCount] = await Promise.all([
      this.instant(promql.callsByOutcome(w), q.to),
      this.instant(promql.retriesByOutcome(w), q.to),
      this.instant(promql.wastedRetrySeconds(w), q.to),
      this.instant(promql.nonRetryableDurationSum(w), q.to),
      this.instant(promql.nonRetryableDurationCount(w), q.to),
    ]);
    const outcome = (samples: InstantSample[], o: string) =>
      sumWhere(samples, (s) => label(s, PROM_LABEL_OUTCOME) === o);
    const retriesTotal = sumWhere(retries);
    const successful = outcome(retries, SUCCESS);
    const count = sumWhere(mttfCount);
    return {
      calls: {
        total: sumWhere(calls),
        success: outcome(calls, SUCCESS),
        failure: outcome(calls, FAILURE),
        rejected: outcome(calls, REJECTED),
      },
      retries: {
        total: retriesTotal,
        successful,
        efficiency: retriesTotal > 0 ? successful / retriesTotal : null,
      },
      wastedRetries: outcome(retries, FAILURE),
      wastedRetryTimeSeconds: roundSeconds(sumWhere(wasted)),
      mttfNonRetryableSeconds: count > 0 ? roundSeconds(sumWhere(mttfSum) / count) : null,
    };
  }

  async summary(q: TimeQuery): Promise<Summary> {
    const [counts, errors, breakers] = await Promise.all([
      this.countsOf(q),
      this.instant(promql.errorsBy(this.window(q), [PROM_LABEL_ERROR_CLASS, PROM_LABEL_ERROR_TYPE]), q.to),
      this.breakers(q),
    ]);
    const byClass = { retryable: 0, non_retryable: 0, conditional: 0 };
    const byType: Record<string, number> = {};
    for (const s of errors) {
      const v = finite(s.value);
      if (v === 0) continue;
      const cls = label(s, PROM_LABEL_ERROR_CLASS);
      if (cls === 'retryable' || cls === 'non_retryable' || cls === 'conditional') byClass[cls] += v;
      const type = label(s, PROM_LABEL_ERROR_TYPE) || '_OTHER';
      byType[type] = (byType[type] ?? 0) + v;
    }
    return {
      from: q.from,
      to: q.to,
      calls: counts.calls,
      retries: counts.retries,
      errors: { byClass, byType },
      wastedRetries: counts.wastedRetries,
      wastedRetryTimeSeconds: counts.wastedRetryTimeSeconds,
      mttfNonRetryableSeconds: counts.mttfNonRetryableSeconds,
      breakers,
    };
  }

  async headline(q: TimeQuery): Promise<Headline> {
    const [counts, breakers] = await Promise.all([this.countsOf(q), this.breakers(q)]);
    const minutes = Math.max(1 / 60, (q.to - q.from) / 60_000);
    return {
      from: q.from,
      to: q.to,
      retries: counts.retries,
      calls: counts.calls,
      callsPerMinute: counts.calls.total / minutes,
      openBreakers: breakers.filter((b) => b.state === 'open').length,
      wastedRetries: counts.wastedRetries,
      wastedRetryTimeSeconds: counts.wastedRetryTimeSeconds,
      mttfNonRetryableSeconds: counts.mttfNonRetryableSeconds,
    };
  }

  async retryTotals(q: TimeQuery): Promise<RetryTotals[]> {
    const rows = await this.instant(promql.retriesByServerAndOutcome(this.window(q)), q.to);
    const by = new Map<string, { server: string; successful: number; total: number }>();
    for (const s of rows) {
      const v = finite(s.value);
      if (v === 0) continue;
      const server = label(s, SERVER);
      const t = by.get(server) ?? { server, successful: 0, total: 0 };
      t.total += v;
      if (label(s, PROM_LABEL_OUTCOME) === SUCCESS) t.successful += v;
      by.set(server, t);
    }
    return [...by.values()].sort((a, b) => a.server.localeCompare(b.server));
  }

  async efficiencySeries(q: TimeQuery): Promise<Series<RatioPoint>> {
    const plan = this.plan(q);
    const points = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      successful: 0,
      total: 0,
    }));
    await this.buckets(promql.retriesByOutcome, q, plan, (k, labels, v) => {
      const p = points[k]!;
      p.total += v;
      if (labels[PROM_LABEL_OUTCOME] === SUCCESS) p.successful += v;
    });
    return { step: plan.step, points };
  }

  async callSeries(q: TimeQuery): Promise<Series<CallsPoint>> {
    const plan = this.plan(q);
    const points = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      success: 0,
      failure: 0,
      rejected: 0,
    }));
    await this.buckets(promql.callsByOutcome, q, plan, (k, labels, v) => {
      const o = labels[PROM_LABEL_OUTCOME];
      const p = points[k] as Record<string, number>;
      if (o === SUCCESS || o === FAILURE || o === REJECTED) p[o] = (p[o] ?? 0) + v;
    });
    return { step: plan.step, points };
  }

  async errorSeries(q: TimeQuery, by: 'class' | 'type'): Promise<Series<KeyedPoint>> {
    const col = by === 'class' ? PROM_LABEL_ERROR_CLASS : PROM_LABEL_ERROR_TYPE;
    const plan = this.plan(q);
    const points: KeyedPoint[] = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      values: (by === 'class' ? { retryable: 0, non_retryable: 0, conditional: 0 } : {}) as Record<
        string,
        number
      >,
    }));
    await this.buckets(
      (w) => promql.errorsBy(w, [col]),
      q,
      plan,
      (k, labels, v) => {
        const key = labels[col] || '_OTHER';
        const values = points[k]!.values;
        values[key] = (values[key] ?? 0) + v;
      },
    );
    return { step: plan.step, points };
  }

  async errorBreakdown(q: TimeQuery, by: BreakdownBy): Promise<BreakdownRow[]> {
    const col =
      by === 'class'
        ? PROM_LABEL_ERROR_CLASS
        : by === 'type'
          ? PROM_LABEL_ERROR_TYPE
          : by === 'server'
            ? SERVER
            : TOOL;
    const rows = await this.instant(promql.errorsBy(this.window(q), [col]), q.to);
    const merged = new Map<string, number>();
    for (const s of rows) {
      const key = label(s, col) || (by === 'tool' ? '(no tool)' : '_OTHER');
      merged.set(key, (merged.get(key) ?? 0) + finite(s.value));
    }
    const result = [...merged]
      .map(([key, count]) => ({ key, count }))
      .filter((r) => r.count > 0)
      .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
    if (by === 'class') {
      for (const k of ERROR_CLASSES) if (!result.some((r) => r.key === k)) result.push({ key: k, count: 0 });
    }
    return result;
  }

  // -----------------------------------------------------------------------------------------------------------
  // breakers
  // -----------------------------------------------------------------------------------------------------------

  /** Each instance's current state of each breaker (from the one-hot gauge), and since when. */
  private async instanceBreakers(filters: Filters): Promise<InstanceBreakerState[]> {
    const now = this.now();
    const states = await this.instant(promql.breakerStates(filters, this.options.staleMs), now);
    const keys = states.map((s) => seriesKey(s.labels));
    const cached = (key: string) => {
      const c = this.sinceCache.get(key);
      return c && now - c.at >= 0 && now - c.at < SINCE_CACHE_MS ? c.since : undefined;
    };
    // `since` takes subqueries over every state series: only when a current state is new (or the cached date
    // is a minute old), so that live polling costs one cheap query while nothing changes.
    if (keys.some((k) => cached(k) === undefined)) {
      const since = await this.instant(
        promql.breakerSince(filters, this.options.staleMs, this.resolutionMs),
        now,
      );
      const parts = new Map<string, Partial<Record<string, number>>>();
      for (const s of since) {
        const key = seriesKey(s.labels, ['part']);
        const p = parts.get(key) ?? {};
        p[label(s, 'part')] = s.value;
        parts.set(key, p);
      }
      if (this.sinceCache.size > MAX_SINCE_CACHE) this.sinceCache.clear();
      for (const key of keys)
        this.sinceCache.set(key, { since: this.since(parts.get(key) ?? {}, now), at: now });
    }
    return states.map((s, i) => ({
      service: label(s, promql.LABEL_JOB),
      instance: label(s, promql.LABEL_INSTANCE),
      server: label(s, SERVER),
      tool: label(s, TOOL),
      state: asState(label(s, PROM_LABEL_STATE)),
      since: cached(keys[i]!) ?? now,
      stale: s.value !== 1,
    }));
  }

  /** Since when a state has held, from `promql.breakerSince`'s parts (epoch seconds) → epoch ms. */
  private since(p: Partial<Record<string, number>>, now: number): number {
    const P = promql.SINCE_PARTS;
    const get = (name: string): number | undefined => {
      const v = p[name];
      return v !== undefined && Number.isFinite(v) ? v : undefined;
    };
    const [zeroFine, zeroCoarse, oneFine, oneCoarse] = [
      get(P.zeroFine),
      get(P.zeroCoarse),
      get(P.oneFine),
      get(P.oneCoarse),
    ];
    const step = this.resolutionMs / 1000;
    const fineStart = (now - promql.SINCE_FINE_WINDOW_MS) / 1000;
    let s: number | undefined;
    if (zeroFine !== undefined) s = zeroFine + step;
    else if (zeroCoarse !== undefined) s = zeroCoarse + promql.SINCE_COARSE_MS / 1000;
    else if (oneFine !== undefined && oneFine > fineStart + step) s = oneFine;
    else s = oneCoarse ?? oneFine;
    return s === undefined ? now : Math.min(now, Math.round(s * 1000));
  }

  private async aggregated(filters: Filters): Promise<AggregatedBreaker[]> {
    return aggregateBreakers(await this.instanceBreakers(filters));
  }

  async breakers(q: Pick<TimeQuery, 'filters'>): Promise<BreakerSummary[]> {
    return breakerSummaries(await this.aggregated(q.filters));
  }

  async breakerTiles(q: TimeQuery): Promise<BreakerTile[]> {
    const plan = this.plan(q, 30);
    const sparks = new Map<string, Array<{ t: number; calls: number; failures: number }>>();
    const [aggregated, totals, transitions] = await Promise.all([
      this.aggregated(q.filters),
      this.instant(promql.callsByServerToolOutcome(this.window(q)), q.to),
      this.transitions(q),
      this.buckets(promql.callsByServerToolOutcome, q, plan, (k, labels, v) => {
        const key = `${labels[SERVER] ?? ''}\u0001${labels[TOOL] ?? ''}`;
        let spark = sparks.get(key);
        if (!spark) {
          spark = Array.from({ length: plan.count }, (_, i) => ({
            t: plan.origin + i * plan.step,
            calls: 0,
            failures: 0,
          }));
          sparks.set(key, spark);
        }
        spark[k]!.calls += v;
        if (labels[PROM_LABEL_OUTCOME] === FAILURE) spark[k]!.failures += v;
      }),
    ]);
    const seconds = Math.max(1, (q.to - q.from) / 1000);
    const tiles: BreakerTile[] = aggregated.map((b) => {
      const mine = (server: string, tool: string) =>
        server === b.server && (b.tool === '' || tool === b.tool);
      const mineSample = (s: InstantSample) => mine(label(s, SERVER), label(s, TOOL));
      const success = sumWhere(totals, (s) => mineSample(s) && label(s, PROM_LABEL_OUTCOME) === SUCCESS);
      const failure = sumWhere(totals, (s) => mineSample(s) && label(s, PROM_LABEL_OUTCOME) === FAILURE);
      const all = sumWhere(totals, mineSample);
      const sparkline = Array.from({ length: plan.count }, (_, k) => ({
        t: plan.origin + k * plan.step,
        calls: 0,
        failures: 0,
      }));
      for (const [key, spark] of sparks) {
        const [server, tool] = key.split('\u0001') as [string, string];
        if (!mine(server, tool)) continue;
        for (const [k, p] of spark.entries()) {
          sparkline[k]!.calls += p.calls;
          sparkline[k]!.failures += p.failures;
        }
      }
      const last = transitions.findLast((t) => t.server === b.server && (t.tool ?? '') === b.tool);
      return {
        server: b.server,
        tool: b.tool === '' ? null : b.tool,
        state: b.state,
        since: b.since,
        instances: b.instances,
        stale: b.stale,
        errorRate: success + failure > 0 ? failure / (success + failure) : null,
        calls: all,
        callsPerSecond: all / seconds,
        sparkline,
        lastTransition: last ? { at: last.ts, from: last.from, to: last.to, reason: last.reason } : null,
      };
    });
    return tiles.sort(compareTiles);
  }

  /** The worst state across instances per step (the scrape interval, or range/1000 for long ranges). */
  async breakerTimeline(q: TimeQuery): Promise<BreakerTimelineRow[]> {
    const stepMs = Math.max(
      this.resolutionMs,
      alignUp(Math.ceil((q.to - q.from) / MAX_TIMELINE_STEPS), 1000),
    );
    const origin = alignDown(q.from, stepMs);
    const plan = { step: stepMs, origin, count: Math.max(1, Math.ceil((q.to - origin) / stepMs)) };
    const start = plan.origin + plan.step;
    const series = await this.options.api.queryRange(
      promql.breakerWorstRank(q.filters, plan.step),
      start,
      plan.origin + plan.count * plan.step,
      plan.step,
    );
    const STATES: BreakerStateName[] = ['closed', 'half_open', 'open'];
    const rows: BreakerTimelineRow[] = [];
    for (const s of series) {
      const steps: Array<BreakerStateName | undefined> = new Array(plan.count).fill(undefined);
      for (const [t, v] of s.points) {
        const k = Math.round((t - start) / plan.step);
        if (k >= 0 && k < plan.count && Number.isFinite(v)) steps[k] = STATES[Math.round(v)] ?? 'closed';
      }
      const first = steps.find((x) => x !== undefined);
      if (first === undefined) continue;
      const segments: TimelineSegment[] = [];
      let state = first;
      let from = q.from;
      for (const [k, x] of steps.entries()) {
        if (x === undefined || x === state) continue;
        const boundary = Math.min(q.to, Math.max(q.from, plan.origin + k * plan.step));
        if (boundary > from) segments.push({ from, to: boundary, state });
        from = boundary;
        state = x;
      }
      segments.push({ from, to: q.to, state });
      const tool = label(s, TOOL);
      rows.push({ server: label(s, SERVER), tool: tool === '' ? null : tool, segments });
    }
    return rows.sort(
      (a, b) => a.server.localeCompare(b.server) || (a.tool ?? '').localeCompare(b.tool ?? ''),
    );
  }

  // -----------------------------------------------------------------------------------------------------------
  // instances, transitions, filters
  // -----------------------------------------------------------------------------------------------------------

  async instances(q: TimeQuery): Promise<AgentInstance[]> {
    const windowMs = q.to - q.from;
    const resolution = Math.max(this.resolutionMs, alignUp(Math.ceil(windowMs / MAX_INSTANCE_STEPS), 1000));
    const [sampled, latest] = await Promise.all([
      this.instant(promql.instancesLastSeen(q.filters.service, windowMs, resolution), q.to),
      this.instant(promql.instancesLatestSample(q.filters.service), q.to),
    ]);
    const seen = new Map<string, AgentInstance>();
    for (const s of [...sampled, ...latest]) {
      if (!Number.isFinite(s.value)) continue;
      const lastSeen = Math.round(s.value * 1000);
      if (lastSeen < q.from || lastSeen > q.to) continue;
      const service = label(s, promql.LABEL_JOB);
      const instance = label(s, promql.LABEL_INSTANCE);
      const key = `${service}\u0001${instance}`;
      const prev = seen.get(key);
      if (!prev || prev.lastSeen < lastSeen) seen.set(key, { service, instance, lastSeen });
    }
    return [...seen.values()].sort(
      (a, b) => a.service.localeCompare(b.service) || a.instance.localeCompare(b.instance),
    );
  }

  /**
   * Approximate: the transitions counter's increase in each step (the scrape interval, or range/1000 for long
   * ranges), stamped at the end of the step; no reason (not in the metrics); several changes of one breaker in
   * one step are ordered by following their states.
   */
  async transitions(q: TimeQuery, options: { limit?: number } = {}): Promise<BreakerTransition[]> {
    const limit = Math.max(1, Math.min(MAX_TRANSITIONS, options.limit ?? MAX_TRANSITIONS));
    const range = q.to - q.from;
    const step = Math.max(this.resolutionMs, alignUp(Math.ceil(range / MAX_TRANSITION_STEPS), 1000));
    const count = Math.max(1, Math.ceil(range / step));
    const start = q.from + step;
    const series = await this.options.api.queryRange(
      promql.transitionCounts(q.filters, step, Math.max(MIN_STEP_LOOKBACK_MS, 4 * this.resolutionMs)),
      start,
      q.from + count * step,
      step,
    );
    // (step, breaker instance) → its changes in that step
    const groups = new Map<
      string,
      { ts: number; base: Omit<BreakerTransition, 'ts' | 'from' | 'to'>; edges: Array<[string, string]> }
    >();
    for (const s of series) {
      const tool = label(s, TOOL);
      const base = {
        service: label(s, promql.LABEL_JOB),
        instance: label(s, promql.LABEL_INSTANCE),
        server: label(s, SERVER),
        tool: tool === '' ? null : tool,
        reason: '',
      };
      for (const [t, v] of s.points) {
        const n = Number.isFinite(v) ? Math.round(v) : 0;
        if (n <= 0) continue;
        const ts = Math.min(t, q.to);
        const key = `${t}\u0001${base.service}\u0001${base.instance}\u0001${base.server}\u0001${tool}`;
        const g = groups.get(key) ?? { ts, base, edges: [] };
        for (let i = 0; i < n; i++)
          g.edges.push([label(s, PROM_LABEL_FROM_STATE), label(s, PROM_LABEL_TO_STATE)]);
        groups.set(key, g);
      }
    }
    const out: BreakerTransition[] = [];
    const lastState = new Map<string, string>();
    for (const g of [...groups.values()].sort((a, b) => a.ts - b.ts)) {
      const who = `${g.base.service}\u0001${g.base.instance}\u0001${g.base.server}\u0001${g.base.tool ?? ''}`;
      let state = lastState.get(who);
      const edges = [...g.edges].sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
      while (edges.length > 0) {
        let i = edges.findIndex(([from]) => from === state);
        if (i < 0) i = edges.findIndex(([from]) => !edges.some(([, to]) => to === from));
        if (i < 0) i = 0;
        const [from, to] = edges.splice(i, 1)[0]!;
        out.push({ ts: g.ts, ...g.base, from, to });
        state = to;
      }
      if (state !== undefined) lastState.set(who, state);
    }
    return out.slice(-limit);
  }

  async recentCalls(): Promise<CallRow[]> {
    return [];
  }

  async dimensions(q: TimeQuery): Promise<Dimensions> {
    const matchers = promql.dimensionMatchers();
    const values = (name: string) =>
      this.options.api
        .labelValues(name, matchers, q.from, q.to)
        .then((v) => [...new Set(v.filter((x) => x !== ''))].sort());
    const [services, servers, tools] = await Promise.all([
      values(promql.LABEL_JOB),
      values(SERVER),
      values(TOOL),
    ]);
    return { services, servers, tools };
  }
}
