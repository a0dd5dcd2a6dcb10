import {
  PROM_LABEL_GEN_AI_TOOL_NAME,
  PROM_LABEL_MCP_METHOD_NAME,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE,
  PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS,
  PROM_LABEL_MCP_RESILIENCE_ERROR_TYPE,
  PROM_LABEL_MCP_RESILIENCE_OUTCOME,
  PROM_LABEL_MCP_RESILIENCE_SERVER,
  PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS,
  PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE,
  PROM_LABEL_MCP_RESILIENCE_VARIANT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT,
  PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM,
  PROM_MCP_RESILIENCE_CALLS_TOTAL,
  PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED_TOTAL,
  PROM_MCP_RESILIENCE_ERRORS_TOTAL,
  PROM_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED_TOTAL,
  PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL,
  PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME_SECONDS_TOTAL,
  PROM_MCP_RESILIENCE_RETRIES_TOTAL,
  PROM_MCP_RESILIENCE_RETRY_WASTED_COST_TOTAL,
  PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
  PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
} from '@mcp-resilience/middleware/semconv';
import { asState, type InstanceBreakerState } from './breakers';
import type { InstanceExport } from './covered-time';
import { exportsFromSamples } from './exports-from-samples';
import { newestExportSeen } from './newest-export-seen';
import type {
  BucketPlan,
  BucketRow,
  CountRow,
  Dim,
  HistogramRow,
  Labels,
  LatencyRow,
  MetricName,
  Primitives,
  StateChange,
  WaitingRow,
} from './primitives';
import type { InstantSample, PrometheusApi, RangeSeries } from './prometheus-client';
import * as promql from './promql';
import { ShapedSource } from './shaped-source';
import { alignDown, alignUp, planBuckets } from './time-buckets';
import type {
  AgentInstance,
  BreakerStateName,
  BreakerTransition,
  CallRow,
  Dimensions,
  Filters,
  TimeQuery,
} from './types';

export interface PrometheusSourceOptions {
  readonly api: PrometheusApi;
  /** A breaker whose instances all stopped reporting for this long is no longer shown at all. */
  readonly staleMs: number;
  /** The scrape interval of the resilience metrics: the finest step any query uses. */
  readonly scrapeIntervalMs: number;
  readonly now?: () => number;
  /**
   * How far back charts are planned (Prometheus's retention is not known here): a range reaching further is
   * cut, as the embedded store's `clampRange` cuts at its retention. Default `MAX_LOOKBACK_MS`.
   */
  readonly maxLookbackMs?: number;
}

/** How far back a chart reaches by default (longer than any usual Prometheus/Mimir/Thanos retention). */
export const MAX_LOOKBACK_MS = 400 * 86_400_000;
/** Nothing is later than now plus the largest clock skew (as the embedded ingest's limit). */
const MAX_FUTURE_MS = 25 * 3_600_000;

const SERVER = PROM_LABEL_MCP_RESILIENCE_SERVER;
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
/** How far back an instance's exports are sampled to find its interval (the newest part of the window). */
const EXPORT_PROBE_MS = 600_000;
/** Probes kept at most (one per filter and window). */
const MAX_EXPORT_PROBES = 64;
/** A probe is reused this long: by the charts of one render, not past a scrape their counts would hold. */
const EXPORT_PROBE_REUSE_MS = 1_000;
const MAX_SINCE_CACHE = 100_000;

/** The Prometheus label of each dimension. */
const LABEL: Readonly<Record<Dim, string>> = {
  service: promql.LABEL_JOB,
  server: SERVER,
  tool: TOOL,
  method: PROM_LABEL_MCP_METHOD_NAME,
  outcome: PROM_LABEL_MCP_RESILIENCE_OUTCOME,
  errorClass: PROM_LABEL_MCP_RESILIENCE_ERROR_CLASS,
  errorType: PROM_LABEL_MCP_RESILIENCE_ERROR_TYPE,
  variant: PROM_LABEL_MCP_RESILIENCE_VARIANT,
  shadowClass: PROM_LABEL_MCP_RESILIENCE_SHADOW_CLASS,
  shadowType: PROM_LABEL_MCP_RESILIENCE_SHADOW_TYPE,
  instance: promql.LABEL_INSTANCE,
};

/** The Prometheus counter of each metric (the histogram is read through its _sum/_count/_bucket). */
const COUNTER: Readonly<Record<Exclude<MetricName, 'callDuration'>, string>> = {
  calls: PROM_MCP_RESILIENCE_CALLS_TOTAL,
  retries: PROM_MCP_RESILIENCE_RETRIES_TOTAL,
  errors: PROM_MCP_RESILIENCE_ERRORS_TOTAL,
  wastedTime: PROM_MCP_RESILIENCE_RETRY_WASTED_TIME_SECONDS_TOTAL,
  wastedCost: PROM_MCP_RESILIENCE_RETRY_WASTED_COST_TOTAL,
  modelRetriesAvoided: PROM_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED_TOTAL,
  modelRetriesSavedTime: PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME_SECONDS_TOTAL,
  modelRetriesSavedCost: PROM_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST_TOTAL,
  breakerShed: PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED_TOTAL,
  shadowDisagreements: PROM_MCP_RESILIENCE_SHADOW_DISAGREEMENTS_TOTAL,
};

const label = (s: { labels: Readonly<Record<string, string>> }, name: string): string => s.labels[name] ?? '';
const finite = (v: number): number => (Number.isFinite(v) ? v : 0);

/** The labels of a series minus the metric name and the given ones, as a key. */
function seriesKey(labels: Readonly<Record<string, string>>, without: readonly string[] = []): string {
  return Object.keys(labels)
    .filter((k) => k !== '__name__' && !without.includes(k))
    .sort()
    .map((k) => `${k}\u0001${labels[k]}`)
    .join('\u0002');
}

/**
 * `Primitives` over a Prometheus-compatible API (Prometheus, Mimir, Thanos, VictoriaMetrics) in PromQL
 * (every query is a named builder in `promql.ts`). Stateless: any number of dashboards can read the same
 * Prometheus. Spans are not in Prometheus, so `recentCalls` is empty and the Calls page says where traces are.
 */
export class PrometheusPrimitives implements Primitives {
  readonly kind = 'prometheus' as const;
  readonly capabilities = { traces: false, push: false, instances: true } as const;
  readonly freshnessMs: number;
  readonly now: () => number;
  private readonly resolutionMs: number;
  /** Per state series (all its labels): since when it has been 1, and when that was computed. */
  private readonly sinceCache = new Map<string, { since: number; at: number }>();
  /** Export probes by service filter and window (`instanceExports`), each answered once per scrape. */
  private readonly probes = new Map<string, { at: number; series: Promise<RangeSeries[]> }>();

  constructor(private readonly options: PrometheusSourceOptions) {
    this.now = options.now ?? Date.now;
    this.resolutionMs = Math.max(1000, options.scrapeIntervalMs);
    // a bucket is complete once a scrape after its end has been taken (and a step to evaluate it)
    this.freshnessMs = 2 * this.resolutionMs;
  }

  private instant(expr: string, timeMs: number): Promise<InstantSample[]> {
    return this.options.api.query(expr, timeMs);
  }

  private window(q: TimeQuery): promql.Window {
    return { filters: q.filters, windowMs: q.to - q.from, lookbackMs: TOTAL_LOOKBACK_MS };
  }

  private stepWindow(q: TimeQuery, plan: BucketPlan): promql.Window {
    return {
      filters: q.filters,
      windowMs: plan.step,
      lookbackMs: Math.max(MIN_STEP_LOOKBACK_MS, 4 * this.resolutionMs, plan.step),
    };
  }

  /**
   * Buckets of 10 s at the finest (as the embedded store's finest tier), never finer than the scrape, over the
   * range cut to where data can be (`clampRange`): `from=0` plans the lookback, not 56 years of days.
   */
  plan(q: TimeQuery, maxPoints: number, dataStepMs = 0): BucketPlan {
    const res = Math.max(SERIES_MIN_STEP_MS, alignUp(this.resolutionMs, SERIES_MIN_STEP_MS));
    const { from, to } = this.clampRange(q.from, q.to);
    return planBuckets(from, to, res, maxPoints, dataStepMs);
  }

  /** A range cut to [now - maxLookbackMs, now + the largest skew); a range wholly outside keeps one point. */
  clampRange(fromMs: number, toMs: number): { from: number; to: number } {
    const now = this.now();
    const from = Math.max(
      fromMs,
      alignDown(now - (this.options.maxLookbackMs ?? MAX_LOOKBACK_MS), 86_400_000),
    );
    const to = Math.min(toMs, now + MAX_FUTURE_MS);
    return to > from ? { from, to } : { from: fromMs, to: Math.min(toMs, fromMs + 1) };
  }

  private static labelsOf(s: { labels: Readonly<Record<string, string>> }, by: readonly Dim[]): Labels {
    const labels: Partial<Record<Dim, string>> = {};
    for (const d of by) labels[d] = label(s, LABEL[d]);
    return labels;
  }

  private static merge(
    rows: Array<{ key: string; labels: Labels; value: number; count: number }>,
  ): CountRow[] {
    const merged = new Map<string, { labels: Labels; value: number; count: number }>();
    for (const r of rows) {
      const m = merged.get(r.key);
      if (m) {
        m.value += r.value;
        m.count += r.count;
      } else merged.set(r.key, { labels: r.labels, value: r.value, count: r.count });
    }
    return [...merged.values()].filter((r) => r.value !== 0 || r.count !== 0);
  }

  async totals(metric: MetricName, q: TimeQuery, by: readonly Dim[]): Promise<CountRow[]> {
    const labels = by.map((d) => LABEL[d]);
    const w = this.window(q);
    const build = (name: string) => promql.totalBy(name, labels, w.filters, w.windowMs, w.lookbackMs);
    const key = (s: InstantSample) => by.map((d) => label(s, LABEL[d])).join('\u0001');
    if (metric === 'callDuration') {
      const [sums, counts] = await Promise.all([
        this.instant(build(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM), q.to),
        this.instant(build(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT), q.to),
      ]);
      return PrometheusPrimitives.merge([
        ...sums.map((s) => ({
          key: key(s),
          labels: PrometheusPrimitives.labelsOf(s, by),
          value: finite(s.value),
          count: 0,
        })),
        ...counts.map((s) => ({
          key: key(s),
          labels: PrometheusPrimitives.labelsOf(s, by),
          value: 0,
          count: finite(s.value),
        })),
      ]);
    }
    const samples = await this.instant(build(COUNTER[metric]), q.to);
    return PrometheusPrimitives.merge(
      samples.map((s) => ({
        key: key(s),
        labels: PrometheusPrimitives.labelsOf(s, by),
        value: finite(s.value),
        count: 0,
      })),
    );
  }

  /**
   * A count per bucket: bucket k ([origin + k*step, origin + (k+1)*step)) is the step's exact increase,
   * evaluated at the bucket's end.
   */
  async buckets(
    metric: MetricName,
    q: TimeQuery,
    plan: BucketPlan,
    by: readonly Dim[],
  ): Promise<BucketRow[]> {
    const w = this.stepWindow(q, plan);
    const labels = by.map((d) => LABEL[d]);
    const start = plan.origin + plan.step;
    const end = plan.origin + plan.count * plan.step;
    const range = (name: string) =>
      this.options.api.queryRange(
        promql.totalBy(name, labels, w.filters, w.windowMs, w.lookbackMs),
        start,
        end,
        plan.step,
      );
    const out = new Map<string, { k: number; labels: Labels; value: number; count: number }>();
    const add = (series: RangeSeries[], field: 'value' | 'count') => {
      for (const s of series) {
        const l = PrometheusPrimitives.labelsOf(s, by);
        for (const [t, v] of s.points) {
          const k = Math.round((t - start) / plan.step);
          if (k < 0 || k >= plan.count || !Number.isFinite(v) || v === 0) continue;
          const key = `${k}\u0001${by.map((d) => l[d]).join('\u0001')}`;
          const row = out.get(key) ?? { k, labels: l, value: 0, count: 0 };
          row[field] += v;
          out.set(key, row);
        }
      }
    };
    if (metric === 'callDuration') {
      const [sums, counts] = await Promise.all([
        range(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_SUM),
        range(PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_COUNT),
      ]);
      add(sums, 'value');
      add(counts, 'count');
    } else add(await range(COUNTER[metric]), 'value');
    return [...out.values()];
  }

  /**
   * Each instance's exports, as Prometheus sampled them: its calls counter sampled on the scrape grid over the
   * newest 10 minutes of the window (up to the next grid point after now: the filling bucket's count holds a
   * scrape just taken), its interval the spacing its changes keep (`exportsFromSamples`). An instance whose
   * interval could not be measured has `exportMs` 0 and its newest export seen (`newestExportSeen`): a
   * still-filling bucket holding it is a gap (`coveredMs`). The charts of one render share one range query.
   */
  async instanceExports(q: TimeQuery): Promise<InstanceExport[]> {
    const res = this.resolutionMs;
    const now = Math.min(q.to, this.now());
    const end = alignUp(now, res);
    const start = Math.max(alignDown(q.from, res), end - EXPORT_PROBE_MS);
    if (!(end > start)) return [];
    const service = q.filters.service;
    const key = `${service ?? ''}\u0001${start}\u0001${end}`;
    let probe = this.probes.get(key);
    if (!probe || this.now() - probe.at > EXPORT_PROBE_REUSE_MS) {
      if (this.probes.size >= MAX_EXPORT_PROBES) this.probes.clear();
      const expr = promql.exportProbe(COUNTER.calls, service);
      probe = { at: this.now(), series: this.options.api.queryRange(expr, start, end, res) };
      probe.series.catch(() => this.probes.delete(key));
      this.probes.set(key, probe);
    }
    return (await probe.series).flatMap((s): InstanceExport[] => {
      const service = label(s, promql.LABEL_JOB);
      const e = exportsFromSamples(s.points, res, now);
      if (e) return [{ service, ...e }];
      // no interval measured (calls in fewer than three exports): where its newest export is, interval unknown
      const at = newestExportSeen(s.points, res, now, start);
      return at === undefined ? [] : [{ service, exportAt: at, exportMs: 0 }];
    });
  }

  /** `histogram_quantile` over the window's bucket increases, and the observation count per group. */
  async latency(q: TimeQuery, by: readonly Dim[], quantiles: readonly number[]): Promise<LatencyRow[]> {
    const w = this.window(q);
    const labels = by.map((d) => LABEL[d]);
    const [counts, ...perQuantile] = await Promise.all([
      this.totals('callDuration', q, by),
      ...quantiles.map((x) =>
        this.instant(
          promql.durationQuantile(w, x, labels, PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET),
          q.to,
        ),
      ),
    ]);
    const key = (l: Labels) => by.map((d) => l[d] ?? '').join('\u0001');
    return counts.map((c) => ({
      labels: c.labels,
      count: c.count,
      quantiles: perQuantile.map((samples) => {
        const s = samples.find((x) => key(PrometheusPrimitives.labelsOf(x, by)) === key(c.labels));
        return s && Number.isFinite(s.value) ? s.value : null;
      }),
    }));
  }

  /** The window's bucket increases by `le` (cumulative already), per group. */
  async histogram(q: TimeQuery, by: readonly Dim[]): Promise<HistogramRow[]> {
    const w = this.window(q);
    const samples = await this.instant(
      promql.totalBy(
        PROM_MCP_RESILIENCE_CALL_DURATION_SECONDS_BUCKET,
        [...by.map((d) => LABEL[d]), 'le'],
        w.filters,
        w.windowMs,
        w.lookbackMs,
      ),
      q.to,
    );
    const groups = new Map<string, { labels: Labels; counts: Map<number, number> }>();
    for (const s of samples) {
      const le = label(s, 'le') === '+Inf' ? Number.POSITIVE_INFINITY : Number(label(s, 'le'));
      if (Number.isNaN(le)) continue;
      const labels = PrometheusPrimitives.labelsOf(s, by);
      const key = by.map((d) => labels[d]).join('\u0001');
      const g = groups.get(key) ?? { labels, counts: new Map<number, number>() };
      g.counts.set(le, (g.counts.get(le) ?? 0) + finite(s.value));
      groups.set(key, g);
    }
    return [...groups.values()].map((g) => ({
      labels: g.labels,
      buckets: [...g.counts].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count })),
    }));
  }

  async breakerWaiting(filters: Filters): Promise<WaitingRow[]> {
    const samples = await this.instant(promql.breakerWaiting(filters, this.options.staleMs), this.now());
    return samples
      .filter((s) => Number.isFinite(s.value))
      .map((s) => ({ server: label(s, SERVER), tool: label(s, TOOL), waiting: Math.max(0, s.value) }));
  }

  // -----------------------------------------------------------------------------------------------------------
  // breakers
  // -----------------------------------------------------------------------------------------------------------

  /** Each instance's current state of each breaker (from the one-hot gauge), and since when. */
  async instanceBreakers(filters: Filters): Promise<InstanceBreakerState[]> {
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
      state: asState(label(s, PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE)),
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

  /**
   * The worst state across instances per step (the scrape interval, or range/1000 for long ranges), as
   * changes: a step's state holds from the step's start; a breaker's first step with a sample is where its
   * data began.
   */
  async stateChanges(q: TimeQuery): Promise<StateChange[]> {
    const stepMs = Math.max(
      this.resolutionMs,
      alignUp(Math.ceil((q.to - q.from) / MAX_TIMELINE_STEPS), 1000),
    );
    const origin = alignDown(q.from, stepMs);
    const count = Math.max(1, Math.ceil((q.to - origin) / stepMs));
    const start = origin + stepMs;
    const series = await this.options.api.queryRange(
      promql.breakerWorstRank(q.filters, stepMs),
      start,
      origin + count * stepMs,
      stepMs,
    );
    const STATES: BreakerStateName[] = ['closed', 'half_open', 'open'];
    const changes: StateChange[] = [];
    for (const s of series) {
      const [server, tool] = [label(s, SERVER), label(s, TOOL)];
      let last: BreakerStateName | undefined;
      for (const [t, v] of s.points) {
        const k = Math.round((t - start) / stepMs);
        if (k < 0 || k >= count || !Number.isFinite(v)) continue;
        const worst = STATES[Math.round(v)] ?? 'closed';
        if (worst !== last) changes.push({ server, tool, t: origin + k * stepMs, worst });
        last = worst;
      }
    }
    return changes;
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
  async transitions(q: TimeQuery, limit: number): Promise<BreakerTransition[]> {
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
          g.edges.push([
            label(s, PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_FROM_STATE),
            label(s, PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_TO_STATE),
          ]);
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
    const [services, servers, tools, variants] = await Promise.all([
      values(promql.LABEL_JOB),
      values(SERVER),
      values(TOOL),
      values(PROM_LABEL_MCP_RESILIENCE_VARIANT),
    ]);
    return { services, servers, tools, variants };
  }
}

/** The dashboard's `MetricsSource` over a Prometheus-compatible API. */
export class PrometheusSource extends ShapedSource {
  constructor(options: PrometheusSourceOptions) {
    super(new PrometheusPrimitives(options));
  }
}
