import { ERROR_CLASSES } from '@mcp-resilience/middleware';
import {
  OUTCOME_VALUE_FAILURE,
  OUTCOME_VALUE_REJECTED,
  OUTCOME_VALUE_SUCCESS,
} from '@mcp-resilience/middleware/semconv';
import { breakerTimeline } from './breaker-timeline';
import {
  aggregateBreakers,
  breakerSummaries,
  compareTiles,
  GONE_AFTER_MS,
  goneBreakers,
  type InstanceBreakerState,
  pageOfBreakers,
} from './breakers';
import { coveredMs, type InstanceExport } from './covered-time';
import { dataInterval } from './data-interval';
import { experimentData } from './experiment-data';
import type { ExperimentData } from './experiments-types';
import { MAX_TRANSITIONS, type MetricsSource, roundSeconds } from './metrics-source';
import type { BucketPlan, BucketRow, CountRow, Dim, Primitives } from './primitives';
import { dataStep } from './time-buckets';
import type {
  AgentInstance,
  BreakdownBy,
  BreakdownRow,
  BreakerPage,
  BreakerPageQuery,
  BreakerSummary,
  BreakerTile,
  BreakerTimelineRow,
  BreakerTransition,
  CallRow,
  CallsPoint,
  CallsQuery,
  CompareBy,
  CompareGroup,
  Dimensions,
  Headline,
  HeadlineWindow,
  KeyedPoint,
  LatencyStat,
  RatioPoint,
  RetryTotals,
  Series,
  Summary,
  TimeQuery,
  TransitionMark,
} from './types';

const SUCCESS = OUTCOME_VALUE_SUCCESS;
const FAILURE = OUTCOME_VALUE_FAILURE;
const REJECTED = OUTCOME_VALUE_REJECTED;

/** The "now" of the incident view: the headline's short window. */
export const NOW_WINDOW_MS = 5 * 60_000;
/** Points per chart at most (server-side down-sampling). */
export const MAX_POINTS = 200;
/** Breakers `breakers()` (and `GET /api/v1/summary`) lists at most: the worst. */
export const MAX_LISTED_BREAKERS = 1000;
/** Groups a compare view shows at most (the busiest). */
export const MAX_COMPARE_GROUPS = 8;
export const LATENCY_QUANTILES = [0.5, 0.95, 0.99] as const;

const sum = (rows: readonly CountRow[], pick: (r: CountRow) => boolean = () => true) =>
  rows.reduce((s, r) => (pick(r) ? s + r.value : s), 0);
const byOutcome = (rows: readonly CountRow[], o: string) => sum(rows, (r) => r.labels.outcome === o);
const classKey = (v: string | undefined) => v || '_OTHER';
/** A breaker tile's calls are grouped by service too: only the services that report the breaker count. */
const TILE_DIMS: readonly Dim[] = ['service', 'server', 'tool', 'outcome'];

/** Rows grouped by a key, looked up per key (instead of filtering every row per tile). */
function groupBy<T>(list: readonly T[], key: (t: T) => string): (k: string) => readonly T[] {
  const m = new Map<string, T[]>();
  for (const t of list) {
    const k = key(t);
    const l = m.get(k);
    if (l) l.push(t);
    else m.set(k, [t]);
  }
  return (k) => m.get(k) ?? [];
}

/** The resolution the first data of a window is looked for at (the finest bucket both backends keep). */
export const FIRST_DATA_RESOLUTION_MS = 10_000;
/** Finer plans asked at most to find it (a 1-day step: 1 d → 10 min → 10 s; a backend may stop coarser). */
const MAX_REFINEMENTS = 4;
/** Points of each finer plan at most (an hour in 10 s buckets). */
const MAX_REFINE_POINTS = 360;

/** Where a window's data begins: the start of the first bucket with calls, and that bucket's length. */
export interface FirstData {
  readonly at: number;
  readonly step: number;
}

/**
 * The time a window's rates divide by: from its first data to the end of the window (its `to`, or now if
 * earlier). Idle time before the first data does not count (an agent that started 2 minutes ago has a rate
 * over 2 minutes, on any range); idle time after the data does (traffic that stopped 4 minutes ago reads as
 * less over the last 5 minutes, not as the rate it had while it ran). At least one bucket of the resolution
 * the first data was found at.
 */
export function dataExtent(
  q: TimeQuery,
  first: FirstData | null,
  now: number,
): { dataFrom: number | null; dataSeconds: number } {
  if (first === null) return { dataFrom: null, dataSeconds: 0 };
  const dataFrom = Math.max(q.from, first.at);
  const end = Math.min(q.to, now);
  return {
    dataFrom,
    dataSeconds: Math.max(end - dataFrom, Math.min(first.step, q.to - q.from)) / 1000,
  };
}

/**
 * A compare group's rate denominator: from the first bucket of `plan` where the group has calls (the chart's
 * resolution) to the window's end, as `dataExtent`; 0 without calls.
 */
export function groupDataSeconds(q: TimeQuery, plan: BucketPlan, rows: readonly BucketRow[], now: number) {
  const k = rows.reduce((m, r) => (r.value > 0 && r.k < m ? r.k : m), Number.POSITIVE_INFINITY);
  if (!Number.isFinite(k)) return 0;
  return dataExtent(q, { at: plan.origin + k * plan.step, step: plan.step }, now).dataSeconds;
}

/** Where a backend's data ends, for the newest partial bucket's rate (`dataEnd`). */
interface DataEdge {
  readonly lastData?: number | undefined;
  readonly exports?: readonly InstanceExport[] | undefined;
}

/**
 * THE shaping module: every response the pages, the JSON API, the SSE stream and the alert engine read is
 * built here, once, from a backend's primitive queries (`Primitives`), so the embedded store and PromQL cannot
 * disagree on what a number means (experiments too: `experiment-data.ts`, their statistics in `experiments.ts`).
 */
export class ShapedSource implements MetricsSource {
  readonly kind: 'embedded' | 'prometheus';
  readonly capabilities: { readonly traces: boolean; readonly push: boolean; readonly instances: boolean };
  readonly subscribe?: MetricsSource['subscribe'];

  constructor(protected readonly p: Primitives) {
    this.kind = p.kind;
    this.capabilities = p.capabilities;
    if (p.subscribe) this.subscribe = (listener) => p.subscribe!(listener);
  }

  private plan(q: TimeQuery, maxPoints = MAX_POINTS): BucketPlan {
    return this.p.plan(q, maxPoints);
  }

  /** Where the points stop being complete: buckets ending after the window, or too recently to be all in. */
  private partialFrom(q: TimeQuery, plan: BucketPlan): number | undefined {
    const complete = Math.min(q.to, this.p.now() - this.p.freshnessMs);
    for (let k = 0; k < plan.count; k++) {
      const t = plan.origin + k * plan.step;
      if (t + plan.step > complete) return t;
    }
    return undefined;
  }

  /**
   * Where the newest partial bucket's rate ends (its rate is its count over `end` minus its start). With the
   * instances' exports: its start plus the time its counts cover (`coveredMs`: a count is dated by its export,
   * which carries a whole export interval, so over less one export would read as a spike, over more as a drop);
   * its start (a gap) when an instance whose interval is not known exported in it. Else the newest data
   * received (`lastData`, when the backend knows it), else now (or the window's end); but at least half an
   * export lag into the last bucket.
   */
  private dataEnd(q: TimeQuery, plan: BucketPlan, edge: DataEdge): number {
    const last = plan.origin + (plan.count - 1) * plan.step;
    const end = Math.min(q.to, this.p.now());
    const covered = edge.exports && coveredMs(last, end, edge.exports, this.p.freshnessMs);
    if (covered === null) return last;
    if (covered) return last + covered;
    if (edge.lastData !== undefined) {
      return Math.min(end, Math.max(edge.lastData, last + Math.min(plan.step, this.p.freshnessMs / 2)));
    }
    return Math.max(end, last + Math.min(plan.step, this.p.freshnessMs));
  }

  /**
   * The first data of a window, at a fine resolution whatever the chart's step: the first bucket of `plan`
   * with data (in `rows`), then within it on finer plans (`fetch` answers the same counts on another plan)
   * until buckets of `FIRST_DATA_RESOLUTION_MS` or the finest the backend keeps there.
   */
  private async firstData(
    q: TimeQuery,
    plan: BucketPlan,
    rows: readonly BucketRow[],
    fetch: (q: TimeQuery, plan: BucketPlan) => Promise<readonly BucketRow[]>,
  ): Promise<FirstData | null> {
    const firstK = (rs: readonly BucketRow[]) =>
      rs.reduce((m, r) => (r.value > 0 && r.k < m ? r.k : m), Number.POSITIVE_INFINITY);
    const k = firstK(rows);
    if (!Number.isFinite(k)) return null;
    let first: FirstData = { at: plan.origin + k * plan.step, step: plan.step };
    for (let i = 0; i < MAX_REFINEMENTS && first.step > FIRST_DATA_RESOLUTION_MS; i++) {
      const sub: TimeQuery = {
        ...q,
        from: Math.max(q.from, first.at),
        to: Math.min(q.to, first.at + first.step),
      };
      if (!(sub.to > sub.from)) break;
      const fine = this.plan(
        sub,
        Math.min(MAX_REFINE_POINTS, Math.ceil(first.step / FIRST_DATA_RESOLUTION_MS)),
      );
      if (fine.step >= first.step) break;
      const fk = firstK(await fetch(sub, fine));
      if (!Number.isFinite(fk)) break;
      first = { at: fine.origin + fk * fine.step, step: fine.step };
    }
    return first;
  }

  /**
   * A chart's plan: never finer than the data's own resolution (`dataInterval`: the longest steady export
   * interval in the window), so no bucket reads 0 and the next several exports' worth; with that interval
   * when it widened the step (the chart says why its buckets are that wide).
   */
  private chartPlan(q: TimeQuery, edge: DataEdge): { plan: BucketPlan; exportMs?: number } {
    const base = this.plan(q);
    const exportMs = dataInterval(edge.exports);
    if (exportMs === undefined) return { plan: base };
    const wide = this.p.plan(q, MAX_POINTS, dataStep(exportMs));
    return wide.step === base.step ? { plan: base } : { plan: wide, exportMs };
  }

  private series<P>(
    q: TimeQuery,
    plan: BucketPlan,
    points: P[],
    edge: DataEdge = {},
    exportMs?: number,
  ): Series<P> {
    const partialFrom = this.partialFrom(q, plan);
    const widened = exportMs === undefined ? {} : { exportMs };
    return partialFrom === undefined
      ? { step: plan.step, points, ...widened }
      : { step: plan.step, points, partialFrom, end: this.dataEnd(q, plan, edge), ...widened };
  }

  /** What the backend knows of where the data ends: its newest data, its instances' exports. */
  private async edge(q: TimeQuery): Promise<DataEdge> {
    const [lastData, exports] = await Promise.all([
      this.p.lastDataAt ? this.p.lastDataAt(q.filters) : undefined,
      this.p.instanceExports ? this.p.instanceExports(q) : undefined,
    ]);
    return { lastData, exports };
  }

  // ---------------------------------------------------------------------------------------------------------
  // headline and summary
  // ---------------------------------------------------------------------------------------------------------

  /** The counts of one window; rates over the time that has data (from the first calls to the window's end). */
  private async headlineWindow(q: TimeQuery, withExtent = true): Promise<HeadlineWindow> {
    const plan = this.plan(q);
    const [calls, retries, wasted, durations, avoided, saved, savedCost, cost, perBucket] = await Promise.all(
      [
        this.p.totals('calls', q, ['outcome']),
        this.p.totals('retries', q, ['outcome']),
        this.p.totals('wastedTime', q, []),
        this.p.totals('callDuration', q, ['outcome', 'errorClass']),
        this.p.totals('modelRetriesAvoided', q, []),
        this.p.totals('modelRetriesSavedTime', q, []),
        this.p.totals('modelRetriesSavedCost', q, []),
        this.p.totals('wastedCost', q, []),
        withExtent ? this.p.buckets('calls', q, plan, []) : Promise.resolve([]),
      ],
    );
    const first = withExtent
      ? await this.firstData(q, plan, perBucket, (sub, fine) => this.p.buckets('calls', sub, fine, []))
      : null;
    const { dataFrom, dataSeconds } = dataExtent(q, first, this.p.now());
    const retriesTotal = sum(retries);
    const successful = byOutcome(retries, SUCCESS);
    const nr = durations.filter(
      (r) => r.labels.outcome === FAILURE && r.labels.errorClass === 'non_retryable',
    );
    const nrCount = nr.reduce((s, r) => s + r.count, 0);
    const total = sum(calls);
    return {
      from: q.from,
      to: q.to,
      dataFrom,
      dataSeconds,
      calls: {
        total,
        success: byOutcome(calls, SUCCESS),
        failure: byOutcome(calls, FAILURE),
        rejected: byOutcome(calls, REJECTED),
      },
      retries: {
        total: retriesTotal,
        successful,
        efficiency: retriesTotal > 0 ? successful / retriesTotal : null,
      },
      callsPerMinute: dataSeconds > 0 ? (total / dataSeconds) * 60 : 0,
      wastedRetries: byOutcome(retries, FAILURE),
      wastedRetryTimeSeconds: roundSeconds(sum(wasted)),
      mttfNonRetryableSeconds: nrCount > 0 ? roundSeconds(sum(nr) / nrCount) : null,
      wastedCost: cost.length > 0 ? sum(cost) : null,
      modelRetries: {
        avoided: sum(avoided),
        savedSeconds: roundSeconds(sum(saved)),
        savedCost: savedCost.length > 0 ? sum(savedCost) : null,
      },
    };
  }

  /** The last NOW_WINDOW_MS of a window. */
  private nowWindow(q: TimeQuery): TimeQuery {
    return { ...q, from: Math.max(q.from, q.to - NOW_WINDOW_MS) };
  }

  async headline(q: TimeQuery): Promise<Headline> {
    const nowQ = this.nowWindow(q);
    const [range, now, openBreakers] = await Promise.all([
      this.headlineWindow(q),
      this.headlineWindow(nowQ),
      this.openBreakers(q),
    ]);
    return { ...range, openBreakers, now };
  }

  /** Open breakers: counted by the backend's breaker page when it has one (not by reading every breaker). */
  private async openBreakers(q: TimeQuery): Promise<number> {
    if (this.p.breakerPage) return (await this.p.breakerPage(q.filters, { offset: 0, limit: 0 })).counts.open;
    return (await this.breakers(q)).filter((b) => b.state === 'open').length;
  }

  async summary(q: TimeQuery): Promise<Summary> {
    const [h, errors, breakers] = await Promise.all([
      this.headlineWindow(q, false),
      this.p.totals('errors', q, ['errorClass', 'errorType']),
      this.breakers(q),
    ]);
    const byClass = { retryable: 0, non_retryable: 0, conditional: 0 };
    const byType: Record<string, number> = {};
    for (const r of errors) {
      const cls = r.labels.errorClass;
      if (cls === 'retryable' || cls === 'non_retryable' || cls === 'conditional') byClass[cls] += r.value;
      const type = classKey(r.labels.errorType);
      byType[type] = (byType[type] ?? 0) + r.value;
    }
    return {
      from: q.from,
      to: q.to,
      calls: h.calls,
      retries: h.retries,
      errors: { byClass, byType },
      wastedRetries: h.wastedRetries,
      wastedRetryTimeSeconds: h.wastedRetryTimeSeconds,
      mttfNonRetryableSeconds: h.mttfNonRetryableSeconds,
      breakers,
    };
  }

  async retryTotals(q: TimeQuery): Promise<RetryTotals[]> {
    const rows = await this.p.totals('retries', q, ['server', 'outcome']);
    const by = new Map<string, { server: string; successful: number; total: number }>();
    for (const r of rows) {
      const server = r.labels.server ?? '';
      const t = by.get(server) ?? { server, successful: 0, total: 0 };
      t.total += r.value;
      if (r.labels.outcome === SUCCESS) t.successful += r.value;
      by.set(server, t);
    }
    return [...by.values()].sort((a, b) => a.server.localeCompare(b.server));
  }

  /**
   * One query per server by bucket; only a server whose data begins after the window's first bucket is looked
   * at closer (`firstData` on its own rows), so a fleet whose data fills the window costs one query.
   */
  async dataStartByServer(q: TimeQuery, metric: 'calls' | 'retries'): Promise<Map<string, number>> {
    const plan = this.plan(q);
    const rows = await this.p.buckets(metric, q, plan, ['server']);
    const byServer = new Map<string, BucketRow[]>();
    for (const r of rows) {
      const server = r.labels.server ?? '';
      const list = byServer.get(server) ?? [];
      list.push(r);
      byServer.set(server, list);
    }
    const starts = new Map<string, number>();
    for (const [server, own] of byServer) {
      const sq: TimeQuery = server ? { ...q, filters: { ...q.filters, server } } : q;
      const fetch = (sub: TimeQuery, p: BucketPlan) => this.p.buckets(metric, sub, p, []);
      const whole = own.some((r) => r.k === 0 && r.value > 0);
      const first = whole || !server ? null : await this.firstData(sq, plan, own, fetch);
      const coarse = Math.min(...own.filter((r) => r.value > 0).map((r) => plan.origin + r.k * plan.step));
      const at = first?.at ?? coarse;
      if (Number.isFinite(at)) starts.set(server, Math.max(q.from, at));
    }
    return starts;
  }

  // ---------------------------------------------------------------------------------------------------------
  // series
  // ---------------------------------------------------------------------------------------------------------

  private static ratioPoints(plan: BucketPlan, rows: readonly BucketRow[]): RatioPoint[] {
    const points = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      successful: 0,
      total: 0,
    }));
    for (const r of rows) {
      const p = points[r.k];
      if (!p) continue;
      p.total += r.value;
      if (r.labels.outcome === SUCCESS) p.successful += r.value;
    }
    return points;
  }

  private static callPoints(plan: BucketPlan, rows: readonly BucketRow[]): CallsPoint[] {
    const points = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      success: 0,
      failure: 0,
      rejected: 0,
    }));
    for (const r of rows) {
      const p = points[r.k] as Record<string, number> | undefined;
      const o = r.labels.outcome;
      if (p && (o === SUCCESS || o === FAILURE || o === REJECTED)) p[o] = (p[o] ?? 0) + r.value;
    }
    return points;
  }

  async efficiencySeries(q: TimeQuery): Promise<Series<RatioPoint>> {
    const { plan, exportMs } = this.chartPlan(q, await this.edge(q));
    const rows = await this.p.buckets('retries', q, plan, ['outcome']);
    return this.series(q, plan, ShapedSource.ratioPoints(plan, rows), {}, exportMs);
  }

  async callSeries(q: TimeQuery): Promise<Series<CallsPoint>> {
    const edge = await this.edge(q);
    const { plan, exportMs } = this.chartPlan(q, edge);
    const rows = await this.p.buckets('calls', q, plan, ['outcome']);
    return this.series(q, plan, ShapedSource.callPoints(plan, rows), edge, exportMs);
  }

  async errorSeries(q: TimeQuery, by: 'class' | 'type'): Promise<Series<KeyedPoint>> {
    const { plan, exportMs } = this.chartPlan(q, await this.edge(q));
    const dim: Dim = by === 'class' ? 'errorClass' : 'errorType';
    const rows = await this.p.buckets('errors', q, plan, [dim]);
    const points: KeyedPoint[] = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      values: (by === 'class' ? { retryable: 0, non_retryable: 0, conditional: 0 } : {}) as Record<
        string,
        number
      >,
    }));
    for (const r of rows) {
      const p = points[r.k];
      if (!p) continue;
      const key = classKey(r.labels[dim]);
      p.values[key] = (p.values[key] ?? 0) + r.value;
    }
    return this.series(q, plan, points, {}, exportMs);
  }

  async errorBreakdown(q: TimeQuery, by: BreakdownBy): Promise<BreakdownRow[]> {
    const dim: Dim = by === 'class' ? 'errorClass' : by === 'type' ? 'errorType' : by;
    const rows = await this.p.totals('errors', q, [dim]);
    const merged = new Map<string, number>();
    for (const r of rows) {
      const key = r.labels[dim] || (by === 'tool' ? '(no tool)' : '_OTHER');
      merged.set(key, (merged.get(key) ?? 0) + r.value);
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

  /**
   * Failed attempts by type AND the class they were given, from one query: the class and type tables of a
   * page are two sums of these rows, so they can never disagree (a naive agent that calls invalid_params
   * "retryable" shows as exactly that).
   */
  async errorMatrix(q: TimeQuery): Promise<Array<{ type: string; errorClass: string; count: number }>> {
    const rows = await this.p.totals('errors', q, ['errorType', 'errorClass']);
    const merged = new Map<string, { type: string; errorClass: string; count: number }>();
    for (const r of rows) {
      const type = classKey(r.labels.errorType);
      const errorClass = classKey(r.labels.errorClass);
      const key = `${type}\u0001${errorClass}`;
      const m = merged.get(key) ?? { type, errorClass, count: 0 };
      m.count += r.value;
      merged.set(key, m);
    }
    return [...merged.values()]
      .filter((r) => r.count > 0)
      .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
  }

  /**
   * One row per server and tool (whatever method its calls named: a foreign exporter may send a tool call
   * without `mcp.method.name`, and the row links by server and tool), and for calls without a tool one row per
   * server and method (its method's calls, or those that named neither).
   */
  async latency(q: TimeQuery): Promise<LatencyStat[]> {
    const tools = await this.p.latency(q, ['server', 'tool'], LATENCY_QUANTILES);
    const untooled = tools.some((r) => r.count > 0 && !r.labels.tool)
      ? await this.p.latency(
          { ...q, filters: { ...q.filters, tool: '' } },
          ['server', 'tool', 'method'],
          LATENCY_QUANTILES,
        )
      : [];
    return [...tools.filter((r) => r.labels.tool), ...untooled]
      .filter((r) => r.count > 0)
      .map((r) => ({
        server: r.labels.server ?? '',
        tool: r.labels.tool ?? '',
        method: r.labels.method ?? '',
        calls: r.count,
        p50: r.quantiles[0] ?? null,
        p95: r.quantiles[1] ?? null,
        p99: r.quantiles[2] ?? null,
      }))
      .sort(
        (a, b) =>
          a.server.localeCompare(b.server) ||
          a.tool.localeCompare(b.tool) ||
          a.method.localeCompare(b.method),
      );
  }

  /**
   * The overview's series per group (service, variant, server, or agent instance: `service/instance`), the
   * busiest groups, on one plan. By instance needs a backend that counts per instance.
   */
  async compare(q: TimeQuery, by: CompareBy): Promise<CompareGroup[]> {
    if (by === 'instance' && !this.capabilities.instances) {
      throw new Error(
        'compare by instance: the embedded store keeps no per-instance counts (DASHBOARD_SOURCE=prometheus has them)',
      );
    }
    const dims: Dim[] = by === 'instance' ? ['service', 'instance'] : [by];
    const keyOf = (r: CountRow) => dims.map((d) => r.labels[d] ?? '').join('/');
    const edge = await this.edge(q);
    const { plan, exportMs } = this.chartPlan(q, edge);
    const [calls, retries, callRows, retryRows, durations] = await Promise.all([
      this.p.totals('calls', q, [...dims, 'outcome']),
      this.p.totals('retries', q, [...dims, 'outcome']),
      this.p.buckets('calls', q, plan, [...dims, 'outcome']),
      this.p.buckets('retries', q, plan, [...dims, 'outcome']),
      this.p.totals('callDuration', q, [...dims, 'outcome']),
    ]);
    // a group of services covers the time of its services' exports
    const edgeOf = (key: string): DataEdge =>
      by === 'service' ? { ...edge, exports: edge.exports?.filter((e) => e.service === key) } : edge;
    const keys = new Map<string, number>();
    for (const r of calls) keys.set(keyOf(r), (keys.get(keyOf(r)) ?? 0) + r.value);
    for (const r of retries) if (!keys.has(keyOf(r))) keys.set(keyOf(r), 0);
    return [...keys]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, MAX_COMPARE_GROUPS)
      .map(([key]) => {
        const mine = (r: CountRow) => keyOf(r) === key;
        const mineCalls = callRows.filter(mine);
        const retriesTotal = sum(retries, mine);
        const callsTotal = sum(calls, mine);
        const rejected = sum(calls, (r) => mine(r) && r.labels.outcome === REJECTED);
        return {
          key,
          efficiency: this.series(
            q,
            plan,
            ShapedSource.ratioPoints(plan, retryRows.filter(mine)),
            {},
            exportMs,
          ),
          calls: this.series(q, plan, ShapedSource.callPoints(plan, mineCalls), edgeOf(key), exportMs),
          retries: {
            total: retriesTotal,
            successful: sum(retries, (r) => mine(r) && r.labels.outcome === SUCCESS),
          },
          callsTotal,
          failures: sum(calls, (r) => mine(r) && r.labels.outcome === FAILURE),
          rejected,
          successes: sum(calls, (r) => mine(r) && r.labels.outcome === SUCCESS),
          requests: callsTotal - rejected + retriesTotal,
          failedSeconds: sum(durations, (r) => mine(r) && r.labels.outcome !== SUCCESS),
          dataSeconds: groupDataSeconds(q, plan, mineCalls, this.p.now()),
        };
      });
  }

  // ---------------------------------------------------------------------------------------------------------
  // breakers
  // ---------------------------------------------------------------------------------------------------------

  /**
   * The breakers still reported, worst first: at most `MAX_LISTED_BREAKERS` (the worst; a backend with
   * `breakerPage` reads only those), unless `filters.breakers` names them.
   */
  async breakers(q: Pick<TimeQuery, 'filters'>): Promise<BreakerSummary[]> {
    let filters = q.filters;
    if (filters.breakers === undefined && this.p.breakerPage) {
      const page = await this.p.breakerPage(filters, { offset: 0, limit: MAX_LISTED_BREAKERS });
      if (page.keys.length === 0) return [];
      filters = { ...filters, breakers: page.keys };
    }
    const all = breakerSummaries(aggregateBreakers(await this.p.instanceBreakers(filters), this.p.now()));
    return filters === q.filters ? all.slice(0, MAX_LISTED_BREAKERS) : all;
  }

  /**
   * One tile per breaker (every breaker: the JSON-free API of tests and small fleets; the Breakers page reads
   * `breakerPage`). Its calls (error rates, calls/s, sparkline) are those of the services whose instances
   * report that breaker: an agent without a breaker (a naive agent) calling the same server is not mixed in.
   */
  async breakerTiles(q: TimeQuery): Promise<BreakerTile[]> {
    const instances = await this.p.instanceBreakers(q.filters);
    return this.tilesOf(q, instances);
  }

  /**
   * One page of the Breakers page: the page's breakers are chosen first (`Primitives.breakerPage`, or one
   * pass over the aggregated states), then every query reads those breakers only (`filters.breakers`), so the
   * work is linear in what is shown, whatever the store holds.
   */
  async breakerPage(q: TimeQuery, page: BreakerPageQuery): Promise<BreakerPage> {
    const listed = this.p.breakerPage
      ? await this.p.breakerPage(q.filters, page)
      : pageOfBreakers(aggregateBreakers(await this.p.instanceBreakers(q.filters), this.p.now()), page);
    const base = { counts: listed.counts, total: listed.total, offset: page.offset, limit: page.limit };
    if (listed.keys.length === 0) return { ...base, tiles: [], timeline: [] };
    const shown = new Set(listed.keys.map((k) => `${k.server}\u0001${k.tool}`));
    const isShown = (server: string, tool: string | null) => shown.has(`${server}\u0001${tool ?? ''}`);
    const scoped: TimeQuery = { ...q, filters: { ...q.filters, breakers: listed.keys } };
    const [instances, changes] = await Promise.all([
      this.p.instanceBreakers(scoped.filters),
      this.p.stateChanges(scoped),
    ]);
    const timeline = breakerTimeline(scoped, changes, goneBreakers(instances, this.p.now()));
    const tiles = await this.tilesOf(
      scoped,
      instances.filter((i) => isShown(i.server, i.tool)),
    );
    return { ...base, tiles, timeline: timeline.filter((r) => isShown(r.server, r.tool)) };
  }

  /** The tiles of the breakers `instances` report, from one set of queries over `q` (indexed, not scanned per tile). */
  private async tilesOf(q: TimeQuery, instances: readonly InstanceBreakerState[]): Promise<BreakerTile[]> {
    const plan = this.plan(q, 30);
    const nowQ = this.nowWindow(q);
    const nowPlan = this.plan(nowQ, 30);
    const [totals, totalsNow, rows, rowsNow, transitions, waiting, shed] = await Promise.all([
      this.p.totals('calls', q, TILE_DIMS),
      this.p.totals('calls', nowQ, TILE_DIMS),
      this.p.buckets('calls', q, plan, TILE_DIMS),
      this.p.buckets('calls', nowQ, nowPlan, ['service', 'server', 'tool']),
      this.p.transitions(q, MAX_TRANSITIONS),
      this.p.breakerWaiting(q.filters),
      this.p.totals('breakerShed', q, ['server', 'tool']),
    ]);
    const partialFrom = this.partialFrom(q, plan);
    const now = this.p.now();
    const rowServer = (r: CountRow) => r.labels.server ?? '';
    const totalsOf = groupBy(totals, rowServer);
    const totalsNowOf = groupBy(totalsNow, rowServer);
    const rowsOf = groupBy(rows, rowServer);
    const rowsNowOf = groupBy(rowsNow, rowServer);
    const shedOf = groupBy(shed, rowServer);
    const transitionsOf = groupBy(transitions, (t) => t.server);
    const waitingOf = groupBy(waiting, (w) => w.server);
    const instancesOf = groupBy(instances, (i) => `${i.server}\u0001${i.tool}`);
    const rate = (rows: readonly CountRow[], mine: (r: CountRow) => boolean) => {
      const success = sum(rows, (r) => mine(r) && r.labels.outcome === SUCCESS);
      const failure = sum(rows, (r) => mine(r) && r.labels.outcome === FAILURE);
      return success + failure > 0 ? failure / (success + failure) : null;
    };
    const tiles: BreakerTile[] = await Promise.all(
      aggregateBreakers(instances, now).map(async (b) => {
        const reporting = instancesOf(`${b.server}\u0001${b.tool}`);
        const services = new Set(reporting.map((i) => i.service));
        const mine = (r: CountRow) =>
          r.labels.server === b.server &&
          (b.tool === '' || (r.labels.tool ?? '') === b.tool) &&
          services.has(r.labels.service ?? '');
        const sparkline = Array.from({ length: plan.count }, (_, k) => ({
          t: plan.origin + k * plan.step,
          calls: 0,
          failures: 0,
        }));
        for (const r of rowsOf(b.server)) {
          if (!mine(r)) continue;
          const p = sparkline[r.k];
          if (!p) continue;
          p.calls += r.value;
          if (r.labels.outcome === FAILURE) p.failures += r.value;
        }
        // The instances now in the tile's state, and the transition that put the first of them there: "in
        // state" (since the earliest of them entered it) and the transition shown are the same event.
        const holders = reporting.filter(
          (i) =>
            i.stale === b.stale &&
            i.state === b.state &&
            (b.gone === 0 || i.lastSeen === undefined || now - i.lastSeen <= GONE_AFTER_MS),
        );
        const into = transitionsOf(b.server).filter(
          (t) =>
            (t.tool ?? '') === b.tool &&
            t.to === b.state &&
            holders.some((h) => h.service === t.service && h.instance === t.instance),
        );
        const entered =
          into.length === 0
            ? undefined
            : into.reduce((best, t) => (Math.abs(t.ts - b.since) < Math.abs(best.ts - b.since) ? t : best));
        const first = await this.firstData(
          nowQ,
          nowPlan,
          rowsNowOf(b.server).filter(mine),
          async (sub, fine) =>
            (await this.p.buckets('calls', sub, fine, ['service', 'server', 'tool'])).filter(mine),
        );
        const nowSeconds = dataExtent(nowQ, first, now).dataSeconds;
        const tile: BreakerTile = {
          server: b.server,
          tool: b.tool === '' ? null : b.tool,
          state: b.state,
          since: entered && Math.abs(entered.ts - b.since) < plan.step ? entered.ts : b.since,
          instances: b.instances,
          gone: b.gone,
          stale: b.stale,
          errorRate: rate(totalsNowOf(b.server), mine),
          errorRateRange: rate(totalsOf(b.server), mine),
          calls: sum(totalsOf(b.server), mine),
          callsPerSecond: nowSeconds > 0 ? sum(totalsNowOf(b.server), mine) / nowSeconds : 0,
          sparkline,
          lastTransition: entered
            ? { at: entered.ts, from: entered.from, to: entered.to, reason: entered.reason }
            : null,
          waiting: waitingOf(b.server)
            .filter((w) => w.tool === b.tool)
            .reduce((s, w) => s + w.waiting, 0),
          shed: sum(shedOf(b.server), (r) => (r.labels.tool ?? '') === b.tool),
        };
        return partialFrom === undefined ? tile : { ...tile, partialFrom };
      }),
    );
    return tiles.sort(compareTiles);
  }

  async breakerTimeline(q: TimeQuery): Promise<BreakerTimelineRow[]> {
    const [instances, changes] = await Promise.all([
      this.p.instanceBreakers(q.filters),
      this.p.stateChanges(q),
    ]);
    return breakerTimeline(q, changes, goneBreakers(instances, this.p.now()));
  }

  instances(q: TimeQuery): Promise<AgentInstance[]> {
    return this.p.instances(q);
  }

  transitions(q: TimeQuery, options: { limit?: number } = {}): Promise<BreakerTransition[]> {
    return this.p.transitions(q, Math.max(1, Math.min(MAX_TRANSITIONS, options.limit ?? MAX_TRANSITIONS)));
  }

  async transitionMarks(q: TimeQuery, sliceMs: number): Promise<TransitionMark[]> {
    const slice = Math.max(1, Math.ceil(sliceMs));
    if (this.p.transitionMarks) return this.p.transitionMarks(q, slice);
    const marks = new Map<string, TransitionMark & { seen: Set<string> }>();
    for (const t of await this.p.transitions(q, MAX_TRANSITIONS)) {
      const name = t.tool ? `${t.server}/${t.tool}` : t.server;
      const key = `${Math.floor((t.ts - q.from) / slice)}\u0001${t.to}`;
      const m = marks.get(key);
      if (m) {
        m.seen.add(name);
        marks.set(key, { ...m, count: m.count + 1, breakers: m.seen.size });
      } else
        marks.set(key, { t: t.ts, to: t.to, count: 1, breakers: 1, example: name, seen: new Set([name]) });
    }
    return [...marks.values()].map(({ seen: _, ...m }) => m).sort((a, b) => a.t - b.t);
  }

  recentCalls(
    q: CallsQuery,
    options: { limit: number; offset?: number; only?: 'failed' | 'retried' },
  ): Promise<CallRow[]> {
    return this.p.recentCalls(
      { ...q, only: options.only ?? q.only },
      Math.max(1, Math.min(500, options.limit)),
      Math.max(0, Math.floor(options.offset ?? 0)),
    );
  }

  async countCalls(q: CallsQuery): Promise<number> {
    return this.p.countCalls ? this.p.countCalls(q) : 0;
  }

  dimensions(q: TimeQuery): Promise<Dimensions> {
    return this.p.dimensions(q);
  }

  experimentData(q: TimeQuery): Promise<ExperimentData> {
    return experimentData(this.p, q);
  }
}
