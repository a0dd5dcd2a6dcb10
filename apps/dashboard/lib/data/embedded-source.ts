import { OUTCOME_VALUE_SUCCESS } from '@mcp-resilience/middleware/semconv';
import type { Statement } from 'better-sqlite3';
import { attemptBucketSql, attemptProbes } from '../store/attempt-buckets';
import type { EmbeddedStore } from '../store/embedded-store';
import { VARIANTS_SQL } from '../store/experiment-facts';
import { M } from '../store/metric-ids';
import { planRange, planSeries } from '../store/tiers';
import { asState, type InstanceBreakerState, RANK } from './breakers';
import { bucketQuantile } from './bucket-quantile';
import type { InstanceExport } from './covered-time';
import { cumulativeBuckets } from './cumulative-buckets';
import type { ShadowExample } from './experiments-types';
import { PieceCache } from './piece-cache';
import type {
  BreakerKeysPage,
  BucketPlan,
  BucketRow,
  CountRow,
  Dim,
  HistogramRow,
  LatencyRow,
  MetricName,
  Primitives,
  StateChange,
  WaitingRow,
} from './primitives';
import { ShapedSource } from './shaped-source';
import type {
  AgentInstance,
  AttemptRow,
  BreakerCounts,
  BreakerKey,
  BreakerPageQuery,
  BreakerStateName,
  BreakerTransition,
  CallRow,
  CallsQuery,
  Dimensions,
  Filters,
  TimeQuery,
  TransitionMark,
} from './types';

type Col =
  | 'service'
  | 'server'
  | 'method'
  | 'tool'
  | 'outcome'
  | 'error_class'
  | 'error_type'
  | 'variant'
  | 'shadow_class'
  | 'shadow_type';
/** A sum over facts: the grouped label columns, then the sums (v is null when nothing matched). */
type Row = { readonly [column: string]: string | number | null; v: number | null; c: number };
/** The same, where something matched. */
type Sum = Row & { v: number };

const SUCCESS = OUTCOME_VALUE_SUCCESS;

const METRIC: Readonly<Record<MetricName, number>> = {
  calls: M.calls,
  retries: M.retries,
  errors: M.errors,
  callDuration: M.callDuration,
  wastedTime: M.wastedTime,
  wastedCost: M.wastedCost,
  modelRetriesAvoided: M.modelRetriesAvoided,
  modelRetriesSavedTime: M.modelRetriesSavedTime,
  modelRetriesSavedCost: M.modelRetriesSavedCost,
  breakerShed: M.breakerShed,
  shadowDisagreements: M.shadowDisagreements,
};

/** The `dims` column of each label; facts carry no instance. */
const COL: Readonly<Record<Exclude<Dim, 'instance'>, Col>> = {
  service: 'service',
  server: 'server',
  tool: 'tool',
  method: 'method',
  outcome: 'outcome',
  errorClass: 'error_class',
  errorType: 'error_type',
  variant: 'variant',
  shadowClass: 'shadow_class',
  shadowType: 'shadow_type',
};

function col(d: Dim): Col {
  if (d === 'instance')
    throw new Error('the embedded store keeps no per-instance counts (facts carry no instance)');
  return COL[d];
}

/** How long the Breakers page's counts by state are reused (they read every breaker's key). */
const COUNTS_TTL_MS = 2_000;

/** How late an agent's export may be (the OTel SDK exports every 5-60 s; the telemetry package: 5 s). */
const EXPORT_LAG_MS = 10_000;

/** Attempt spans shown per call at most (a call makes a few; more are counted, not listed). */
export const MAX_ATTEMPTS_PER_CALL = 50;

/** Transitions a breaker timeline reads at most (the newest of its window). */
const MAX_TIMELINE_TRANSITIONS = 10_000;

export interface EmbeddedSourceOptions {
  /** A breaker whose instances all stopped reporting for this long is shown as stale and not counted. */
  readonly staleMs: number;
  /** Transitions a breaker timeline reads at most, the newest of its window (default 10,000). */
  readonly maxTimelineTransitions?: number;
}

interface InstanceBreaker {
  service: string;
  instance: string;
  server: string;
  tool: string;
  state: string;
  since: number;
  updated: number;
}

/** `Primitives` over the embedded store: every query reads pre-aggregated facts, never raw data. */
export class EmbeddedPrimitives implements Primitives {
  readonly kind = 'embedded' as const;
  readonly capabilities = { traces: true, push: true, instances: false } as const;
  readonly freshnessMs = EXPORT_LAG_MS;
  private readonly statements = new Map<string, Statement<unknown[], unknown>>();
  private readonly countsCache = new Map<string, { at: number; counts: BreakerCounts }>();

  /** Aggregates over facts, kept until a write reaches their buckets. */
  private readonly pieces = new PieceCache();

  constructor(
    private readonly store: EmbeddedStore,
    private readonly options: EmbeddedSourceOptions,
  ) {
    store.subscribe({ factsChanged: (from) => this.pieces.changedFrom(from) });
  }

  /** The rows of an aggregate over buckets before `to`: kept by `pieces` until a write reaches them. */
  private aggregate<R>(sql: string, to: number, args: readonly unknown[]): readonly R[] {
    return this.pieces.rows(`${sql}\u0000${args.join('\u0001')}`, to, () => this.all<R>(sql, ...args));
  }

  now(): number {
    return this.store.now();
  }

  subscribe(listener: {
    breakers(changed: ReadonlyArray<{ server: string; tool: string }>): void;
    ingested(): void;
  }) {
    return this.store.subscribe({
      breakers: (c) => listener.breakers(c),
      ingested: () => listener.ingested(),
    });
  }

  /** The cached statement of `sql`, its rows typed `R`: the SQL's column list is the contract. */
  private statement<R>(sql: string): Statement<unknown[], R> {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.store.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s as Statement<unknown[], R>;
  }

  private all<R>(sql: string, ...args: unknown[]): R[] {
    return this.statement<R>(sql).all(...args);
  }

  /** The first column of the first row. */
  private value<T>(sql: string, ...args: unknown[]): T {
    return this.statement<T>(sql)
      .pluck()
      .get(...args) as T;
  }

  private static where(filters: Filters): { sql: string; args: string[] } {
    const parts: string[] = [];
    const args: string[] = [];
    const add = (col: Col, value: string | undefined) => {
      if (value === undefined) return;
      parts.push(`d.${col} = ?`);
      args.push(value);
    };
    add('service', filters.service);
    add('server', filters.server);
    add('tool', filters.tool);
    add('method', filters.method);
    add('variant', filters.variant);
    const scope = filters.breakers;
    if (scope !== undefined && scope.length > 0) {
      // a page of breakers: their servers (and tools, unless one of them is per server): a superset
      const servers = [...new Set(scope.map((b) => b.server))];
      parts.push(`d.server IN (${servers.map(() => '?').join(', ')})`);
      args.push(...servers);
      if (!scope.some((b) => b.tool === '')) {
        const tools = [...new Set(scope.map((b) => b.tool))];
        parts.push(`d.tool IN (${tools.map(() => '?').join(', ')})`);
        args.push(...tools);
      }
    }
    return { sql: parts.length > 0 ? ` AND ${parts.join(' AND ')}` : '', args };
  }

  private static labels(row: Row, by: readonly Dim[]): CountRow['labels'] {
    const labels: Partial<Record<Dim, string>> = {};
    for (const d of by) labels[d] = String(row[d] ?? '');
    return labels;
  }

  /**
   * SUM(value), SUM(count) of one metric id grouped by `by` (and the bucket bounds, `bounds`), over the tiers'
   * pieces of [from, to).
   */
  private sumOver(metric: number, q: TimeQuery, by: readonly Dim[], bounds = false): Sum[] {
    const w = EmbeddedPrimitives.where(q.filters);
    const boundCols = bounds ? ['d.bucket_lower', 'd.bucket_le'] : [];
    const cols = [...by.map((d) => `d.${col(d)} AS ${d}`), ...boundCols];
    const group = [...by.map((d) => `d.${col(d)}`), ...boundCols];
    const sql = `SELECT ${cols.join(', ')}${cols.length ? ', ' : ''}SUM(f.value) AS v, SUM(f.count) AS c
      FROM facts f JOIN dims d ON d.id = f.dim
      WHERE f.tier = ? AND f.metric = ? AND f.bucket >= ? AND f.bucket < ?${w.sql}${group.length ? ` GROUP BY ${group.join(', ')}` : ''}`;
    const merged = new Map<string, Sum>();
    const keyCols = [...by, ...(bounds ? ['bucket_lower', 'bucket_le'] : [])];
    for (const piece of planRange(q.from, q.to, this.now(), this.store.tiers)) {
      for (const row of this.aggregate<Row>(sql, piece.to, [
        piece.tier,
        metric,
        piece.from,
        piece.to,
        ...w.args,
      ])) {
        const v = row.v;
        if (v === null) continue;
        const key = keyCols.map((c) => row[c]).join('\u0001');
        const m = merged.get(key);
        if (m) {
          m.v += v;
          m.c += row.c;
        } else merged.set(key, { ...row, v });
      }
    }
    return [...merged.values()];
  }

  plan(q: TimeQuery, maxPoints: number, dataStepMs = 0): BucketPlan {
    const p = planSeries(q.from, q.to, this.now(), this.store.tiers, maxPoints, dataStepMs);
    return { step: p.step, origin: p.origin, count: p.count };
  }

  async totals(metric: MetricName, q: TimeQuery, by: readonly Dim[]): Promise<CountRow[]> {
    return this.sumOver(METRIC[metric], q, by)
      .filter((r) => r.v !== 0 || r.c !== 0)
      .map((r) => ({ labels: EmbeddedPrimitives.labels(r, by), value: r.v, count: r.c }));
  }

  async buckets(
    metric: MetricName,
    q: TimeQuery,
    plan: BucketPlan,
    by: readonly Dim[],
  ): Promise<BucketRow[]> {
    const now = this.now();
    const tiers = this.store.tiers;
    const tier =
      [...tiers].reverse().find((t) => plan.step % t.res === 0 && plan.origin >= now - t.keepMs) ??
      tiers.find((t) => plan.origin >= now - t.keepMs) ??
      tiers[tiers.length - 1]!;
    const w = EmbeddedPrimitives.where(q.filters);
    const cols = by.map((d) => `d.${col(d)} AS ${d}`).join(', ');
    const sql = `SELECT CAST((f.bucket - ?) / ? AS INTEGER) AS k${cols ? `, ${cols}` : ''}, SUM(f.value) AS v, SUM(f.count) AS c
      FROM facts f JOIN dims d ON d.id = f.dim
      WHERE f.tier = ? AND f.metric = ? AND f.bucket >= ? AND f.bucket < ?${w.sql}
      GROUP BY k${by.map((d) => `, d.${col(d)}`).join('')}`;
    // the complete buckets (kept until a write reaches them), then the ones still filling
    const end = plan.origin + plan.count * plan.step;
    const split = Math.min(
      end,
      plan.origin + Math.max(0, Math.floor((now - plan.origin) / plan.step)) * plan.step,
    );
    const read = (from: number, to: number) =>
      to > from
        ? this.aggregate<Sum & { k: number }>(sql, to, [
            plan.origin,
            plan.step,
            tier.id,
            METRIC[metric],
            from,
            to,
            ...w.args,
          ])
        : [];
    const rows = [...read(plan.origin, split), ...read(split, end)];
    return rows
      .filter((r) => r.v !== 0 || r.c !== 0)
      .map((r) => ({ k: r.k, labels: EmbeddedPrimitives.labels(r, by), value: r.v, count: r.c }));
  }

  /** Bucket interpolation over the stored per-bucket counts (as histogram_quantile does). */
  async latency(q: TimeQuery, by: readonly Dim[], quantiles: readonly number[]): Promise<LatencyRow[]> {
    const rows = this.sumOver(M.callDurationBucket, q, by, true);
    const groups = new Map<string, { labels: Partial<Record<Dim, string>>; counts: Map<number, number> }>();
    for (const r of rows) {
      const labels = EmbeddedPrimitives.labels(r, by);
      const key = by.map((d) => labels[d]).join('\u0001');
      const g = groups.get(key) ?? { labels, counts: new Map() };
      const le = String(r.bucket_le);
      const lower = String(r.bucket_lower);
      const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
      if (le === '' || Number.isNaN(bound)) continue;
      g.counts.set(bound, (g.counts.get(bound) ?? 0) + r.v);
      // zero buckets are not stored: the lower bound keeps the interpolation exact
      if (lower !== '' && !Number.isNaN(Number(lower)) && !g.counts.has(Number(lower)))
        g.counts.set(Number(lower), 0);
      groups.set(key, g);
    }
    return [...groups.values()].map((g) => {
      const sorted = [...g.counts].sort((a, b) => a[0] - b[0]);
      const bounds = sorted.filter(([b]) => Number.isFinite(b)).map(([b]) => b);
      const counts = [
        ...sorted.filter(([b]) => Number.isFinite(b)).map(([, c]) => c),
        g.counts.get(Number.POSITIVE_INFINITY) ?? 0,
      ];
      return {
        labels: g.labels,
        count: counts.reduce((s, c) => s + c, 0),
        quantiles: quantiles.map((x) => bucketQuantile(x, bounds, counts)),
      };
    });
  }

  /** The stored per-bucket counts (non-empty buckets only) as a cumulative histogram per group. */
  async histogram(q: TimeQuery, by: readonly Dim[]): Promise<HistogramRow[]> {
    const groups = new Map<string, { labels: CountRow['labels']; counts: Map<number, number> }>();
    for (const r of this.sumOver(M.callDurationBucket, q, by, true)) {
      const le = r.bucket_le === '+Inf' ? Number.POSITIVE_INFINITY : Number(r.bucket_le);
      if (r.bucket_le === '' || Number.isNaN(le)) continue;
      const labels = EmbeddedPrimitives.labels(r, by);
      const key = by.map((d) => labels[d]).join('\u0001');
      const g = groups.get(key) ?? { labels, counts: new Map<number, number>() };
      g.counts.set(le, (g.counts.get(le) ?? 0) + r.v);
      groups.set(key, g);
    }
    return [...groups.values()].map((g) => ({ labels: g.labels, buckets: cumulativeBuckets(g.counts) }));
  }

  async shadowExamples(q: TimeQuery, limit: number): Promise<ShadowExample[]> {
    const parts = ['ts >= ?', 'ts < ?'];
    const args: Array<string | number> = [q.from, q.to];
    for (const [column, value] of [
      ['service', q.filters.service],
      ['server', q.filters.server],
      ['tool', q.filters.tool],
    ] as const) {
      if (value === undefined) continue;
      parts.push(`${column} = ?`);
      args.push(value);
    }
    return this.all<ShadowExample>(
      `SELECT ts AS at, trace_id AS traceId, span_id AS spanId, parent_span_id AS callSpanId, service, server, tool,
         variant, error_class AS errorClass, error_type AS errorType, shadow_class AS shadowClass,
         shadow_type AS shadowType
       FROM shadow_examples WHERE ${parts.join(' AND ')} ORDER BY ts DESC LIMIT ?`,
      ...args,
      limit,
    );
  }

  async breakerWaiting(filters: Filters): Promise<WaitingRow[]> {
    // The latest finest bucket of each (service, instance, breaker) reported within the stale time.
    const tier = this.store.tiers[0]!;
    const since = this.now() - this.options.staleMs;
    const w = EmbeddedPrimitives.where({ ...filters, variant: undefined });
    const rows = this.all<{ server: string; tool: string; level: number }>(
      `SELECT d.server AS server, d.tool AS tool, f.value / f.count AS level
       FROM facts f JOIN dims d ON d.id = f.dim
       JOIN (SELECT f2.dim AS dim, MAX(f2.bucket) AS bucket FROM facts f2
             WHERE f2.tier = ? AND f2.metric = ? AND f2.bucket >= ? GROUP BY f2.dim) latest
         ON latest.dim = f.dim AND latest.bucket = f.bucket
       WHERE f.tier = ? AND f.metric = ? AND f.count > 0${w.sql}`,
      tier.id,
      M.breakerWaiting,
      since,
      tier.id,
      M.breakerWaiting,
      ...w.args,
    );
    const by = new Map<string, WaitingRow>();
    for (const r of rows) {
      const key = `${r.server}\u0001${r.tool}`;
      const prev = by.get(key);
      by.set(key, { server: r.server, tool: r.tool, waiting: (prev?.waiting ?? 0) + r.level });
    }
    return [...by.values()];
  }

  async instanceBreakers(filters: Filters): Promise<InstanceBreakerState[]> {
    const now = this.now();
    return this.rawBreakers(filters).map((r) => ({
      ...r,
      stale: now - r.updated > this.options.staleMs,
      lastSeen: r.updated,
    }));
  }

  /**
   * A page of breakers in SQL, in four segments (reported open, half-open, closed, then stale), each read
   * through an index with LIMIT/OFFSET: a breaker is in the segment of the worst state of its reporting
   * instances. Only the counts read every breaker's key (index-only, kept `COUNTS_TTL_MS`).
   */
  async breakerPage(filters: Filters, page: BreakerPageQuery): Promise<BreakerKeysPage> {
    const f = this.breakerPageFilter(filters, page.match);
    const cut = this.now() - this.options.staleMs;
    const counts = this.breakerCounts(f, cut);
    const segments = (['open', 'half_open', 'closed', 'stale'] as const).filter(
      (s) => page.state === undefined || page.state === s,
    );
    const keys: BreakerKey[] = [];
    let offset = page.offset;
    for (const segment of segments) {
      if (keys.length >= page.limit) break;
      const n = counts[segment];
      // The counts (kept COUNTS_TTL_MS) only skip segments for a later page: the first page reads every segment,
      // so a breaker stored since the counts were taken is listed at once (the summary, the overview).
      if (offset > 0 && offset >= n) {
        offset -= n;
        continue;
      }
      keys.push(...this.breakerSegment(segment, f, cut, page.limit - keys.length, offset));
      offset = 0;
    }
    const total = segments.reduce((s, k) => s + counts[k], 0);
    return { keys, counts, total };
  }

  /** The filters and text match of the Breakers page as SQL conditions on `breakers` (unqualified columns). */
  private breakerPageFilter(filters: Filters, match: string | undefined): { sql: string; args: string[] } {
    const { parts, args } = breakerFilters({ ...filters, breakers: undefined });
    if (match !== undefined && match !== '') {
      parts.push("instr(lower(server || '/' || tool), ?) > 0");
      args.push(match.toLowerCase());
    }
    return { sql: parts.map((p) => ` AND ${p}`).join(''), args };
  }

  private breakerCounts(f: { sql: string; args: string[] }, cut: number): BreakerCounts {
    const key = `${f.sql}\u0001${f.args.join('\u0001')}`;
    const cached = this.countsCache.get(key);
    const now = this.now();
    if (cached && now - cached.at >= 0 && now - cached.at < COUNTS_TTL_MS) return cached.counts;
    const distinct = (where: string, ...args: Array<string | number>) =>
      this.value<number>(
        `SELECT COUNT(*) FROM (SELECT 1 FROM breakers WHERE 1${where}${f.sql} GROUP BY server, tool)`,
        ...args,
        ...f.args,
      );
    const all = distinct('');
    const live = distinct(' AND updated >= ?', cut);
    const open = distinct(" AND state = 'open' AND updated >= ?", cut);
    const halfOpen = this.value<number>(
      `SELECT COUNT(*) FROM (SELECT 1 FROM breakers b WHERE state = 'half_open' AND updated >= ?${f.sql}
         AND NOT EXISTS (SELECT 1 FROM breakers WHERE server = b.server AND tool = b.tool AND state = 'open'
                         AND updated >= ?${f.sql})
       GROUP BY server, tool)`,
      cut,
      ...f.args,
      cut,
      ...f.args,
    );
    const counts: BreakerCounts = {
      open,
      half_open: halfOpen,
      closed: live - open - halfOpen,
      stale: all - live,
    };
    if (this.countsCache.size >= 100) this.countsCache.clear();
    this.countsCache.set(key, { at: now, counts });
    return counts;
  }

  /** One segment's breakers in name order, `limit` from `offset`. */
  private breakerSegment(
    segment: BreakerStateName | 'stale',
    f: { sql: string; args: string[] },
    cut: number,
    limit: number,
    offset: number,
  ): BreakerKey[] {
    // The large segments in one pass over the key index (grouped, no probe per row); the small ones (open,
    // half-open) through the state index.
    if (segment === 'stale' || segment === 'closed') {
      const having =
        segment === 'stale'
          ? 'MAX(updated) < ?'
          : "MAX(updated) >= ? AND MAX(state IN ('open', 'half_open') AND updated >= ?) = 0";
      return this.all<BreakerKey>(
        `SELECT server, tool FROM breakers WHERE 1${f.sql} GROUP BY server, tool HAVING ${having}
         ORDER BY server, tool LIMIT ? OFFSET ?`,
        ...f.args,
        cut,
        ...(segment === 'closed' ? [cut] : []),
        limit,
        offset,
      );
    }
    const worse = segment === 'open' ? '' : "state = 'open'";
    const notWorse = worse
      ? ` AND NOT EXISTS (SELECT 1 FROM breakers WHERE server = b.server AND tool = b.tool AND ${worse}
            AND updated >= ?${f.sql})`
      : '';
    return this.all<BreakerKey>(
      `SELECT DISTINCT server, tool FROM breakers b WHERE state = ? AND updated >= ?${f.sql}${notWorse}
       ORDER BY server, tool LIMIT ? OFFSET ?`,
      segment,
      cut,
      ...f.args,
      ...(worse ? [cut, ...f.args] : []),
      limit,
      offset,
    );
  }

  private rawBreakers(filters: Filters): InstanceBreaker[] {
    const { parts, args } = breakerFilters(filters);
    const sql = `SELECT service, instance, server, tool, state, since, updated FROM breakers${parts.length ? ` WHERE ${parts.join(' AND ')}` : ''}`;
    return this.all<InstanceBreaker>(sql, ...args);
  }

  /**
   * Each breaker's worst state across its instances: from where its data begins in the window, then at every
   * transition that changes it, read from the newest `maxTimelineTransitions` of the window (the states
   * before the oldest of them stand for the window's start). Segments: `breaker-timeline.ts`.
   */
  async stateChanges(q: TimeQuery): Promise<StateChange[]> {
    const limit = this.options.maxTimelineTransitions ?? MAX_TIMELINE_TRANSITIONS;
    const inWindow = this.transitionRows(q, limit);
    const startAt = inWindow.length >= limit ? inWindow[0]!.ts : q.from;
    const histories = this.histories(q.filters, startAt, limit);
    for (const r of inWindow) {
      const i = histories.instance(r);
      if (i.events.length === 0) i.firstFrom = r.from_state;
      i.events.push({ ts: r.ts, to: r.to_state });
    }
    return histories.all().flatMap((b) => worstChanges(q, b));
  }

  /** Each breaker instance's current state, its state before `startAt` and when it was first seen. */
  private histories(filters: Filters, startAt: number, limit: number) {
    const { parts, args } = breakerFilters(filters);
    const and = parts.map((p) => ` AND ${p}`).join('');
    const current = this.rawBreakers(filters);
    const before = this.all<BreakerInstanceKey & { to_state: string }>(
      `SELECT service, instance, server, tool, to_state, MAX(ts) AS ts FROM breaker_transitions WHERE ts < ?${and}
       GROUP BY service, instance, server, tool LIMIT ?`,
      startAt,
      ...args,
      limit,
    );
    const firstSeen = this.firstSeen(current);
    const breakers = new Map<string, BreakerHistory>();
    const instance = (r: BreakerInstanceKey): InstanceHistory => {
      const key = `${r.server}\u0001${r.tool}`;
      const b = breakers.get(key) ?? { server: r.server, tool: r.tool, instances: new Map() };
      breakers.set(key, b);
      const ik = `${r.service}\u0001${r.instance}`;
      const i = b.instances.get(ik) ?? { events: [], firstSeen: firstSeen.get(ik) };
      b.instances.set(ik, i);
      return i;
    };
    for (const r of current) Object.assign(instance(r), { current: r.state, since: r.since });
    for (const r of before) instance(r).initial = r.to_state;
    return { instance, all: () => [...breakers.values()] };
  }

  /** When each instance of these breakers was first seen (a breaker has no state before its first data). */
  private firstSeen(current: readonly InstanceBreaker[]): Map<string, number> {
    const firstSeen = new Map<string, number>();
    const services = [...new Set(current.map((r) => r.service))];
    if (services.length === 0 || services.length > 500) return firstSeen;
    const rows = this.all<{ service: string; instance: string; first_seen: number }>(
      `SELECT service, instance, first_seen FROM instances WHERE service IN (${services.map(() => '?').join(', ')})`,
      ...services,
    );
    for (const r of rows) firstSeen.set(`${r.service}\u0001${r.instance}`, r.first_seen);
    return firstSeen;
  }

  async lastDataAt(filters: Filters): Promise<number | undefined> {
    const service = filters.service;
    const t = this.value<number | null>(
      `SELECT MAX(last_seen) AS t FROM instances${service === undefined ? '' : ' WHERE service = ?'}`,
      ...(service === undefined ? [] : [service]),
    );
    return t ?? undefined;
  }

  async instanceExports(q: TimeQuery): Promise<InstanceExport[]> {
    const service = q.filters.service;
    const rows = this.all<
      Omit<InstanceExport, 'steady' | 'callsFrom'> & { steady: number; callsFrom: number }
    >(
      `SELECT service, export_at AS exportAt, export_ms AS exportMs, export_steady > 0 AS steady,
         export_from AS callsFrom FROM instances
       WHERE export_at > 0 AND last_seen >= ? AND first_seen < ?${service === undefined ? '' : ' AND service = ?'}`,
      q.from,
      q.to,
      ...(service === undefined ? [] : [service]),
    );
    // an export without an interval (a first cumulative one) is located, with when its calls began if known
    return rows.map(({ callsFrom, ...r }) => ({
      ...r,
      steady: r.steady === 1,
      ...(r.exportMs === 0 && callsFrom > 0 ? { callsFrom } : {}),
    }));
  }

  async instances(q: TimeQuery): Promise<AgentInstance[]> {
    // An instance counts when the period over which it was seen overlaps the window.
    const service = q.filters.service;
    return this.all<AgentInstance>(
      `SELECT service, instance, last_seen AS lastSeen FROM instances WHERE last_seen >= ? AND first_seen < ?${service === undefined ? '' : ' AND service = ?'}
       ORDER BY service, instance`,
      q.from,
      q.to,
      ...(service === undefined ? [] : [service]),
    );
  }

  /** The window's transitions, oldest first: at most `limit`, the newest. */
  private transitionRows(q: TimeQuery, limit: number): TransitionRow[] {
    const { parts, args } = breakerFilters(q.filters);
    return this.all<TransitionRow>(
      `SELECT ts, service, instance, server, tool, from_state, to_state, reason FROM breaker_transitions
       WHERE ${['ts >= ?', 'ts < ?', ...parts].join(' AND ')} ORDER BY ts DESC, id DESC LIMIT ?`,
      q.from,
      q.to,
      ...args,
      limit,
    ).reverse();
  }

  async transitions(q: TimeQuery, limit: number): Promise<BreakerTransition[]> {
    return this.transitionRows(q, limit).map((r) => ({
      ts: r.ts,
      service: r.service,
      instance: r.instance,
      server: r.server,
      tool: r.tool === '' ? null : r.tool,
      from: r.from_state,
      to: r.to_state,
      reason: r.reason,
    }));
  }

  /** The SQL conditions of the Calls page's query over `calls`. */
  private static callsWhere(q: CallsQuery): { sql: string; args: Array<string | number> } {
    const parts = ['start_ms >= ?', 'start_ms < ?'];
    const args: Array<string | number> = [q.from, q.to];
    for (const [col, value] of [
      ['service', q.filters.service],
      ['server', q.filters.server],
      ['tool', q.filters.tool],
      ['method', q.filters.method],
      ['variant', q.filters.variant],
      ['outcome', q.outcome],
      ['error_class', q.errorClass],
      ['error_type', q.errorType],
    ] as const) {
      if (value !== undefined) {
        parts.push(`${col} = ?`);
        args.push(value);
      }
    }
    if (q.only === 'failed') parts.push(`outcome <> '${SUCCESS}'`);
    if (q.only === 'retried') parts.push('attempts > 1');
    return { sql: parts.join(' AND '), args };
  }

  /** Stored calls matching the query (at most `MAX_STORED_CALLS` exist): the Calls page's "N more". */
  async countCalls(q: CallsQuery): Promise<number> {
    const w = EmbeddedPrimitives.callsWhere(q);
    return this.value<number>(`SELECT COUNT(*) AS n FROM calls WHERE ${w.sql}`, ...w.args);
  }

  /** Every transition of the window, counted per slice and target state in SQL (a few rows whatever the count). */
  async transitionMarks(q: TimeQuery, sliceMs: number): Promise<TransitionMark[]> {
    const { parts, args } = breakerFilters(q.filters);
    const rows = this.all<{ to_state: string; n: number; t: number; breakers: number; example: string }>(
      `SELECT CAST((ts - ?) / ? AS INTEGER) AS k, to_state, COUNT(*) AS n, MIN(ts) AS t,
              COUNT(DISTINCT server || char(1) || tool) AS breakers,
              MIN(printf('%020d', ts) || server || CASE WHEN tool = '' THEN '' ELSE '/' || tool END) AS example
       FROM breaker_transitions WHERE ${['ts >= ?', 'ts < ?', ...parts].join(' AND ')}
       GROUP BY k, to_state ORDER BY t`,
      q.from,
      sliceMs,
      q.from,
      q.to,
      ...args,
    );
    return rows.map((r) => ({
      t: r.t,
      to: r.to_state,
      count: r.n,
      breakers: r.breakers,
      example: r.example.slice(20),
    }));
  }

  /**
   * The newest calls of the query (a page: `offset`), each with its attempt spans: the spans of the same
   * trace whose parent is the call's span (trace id AND span id: a span id alone can be claimed by spans of
   * any trace), at most `MAX_ATTEMPTS_PER_CALL` per call, the count of the others kept. Attempts are looked up
   * in the time buckets of their call (`callBuckets`): one index probe per bucket.
   */
  async recentCalls(q: CallsQuery, limit: number, offset = 0): Promise<CallRow[]> {
    const w = EmbeddedPrimitives.callsWhere(q);
    // ties on the start broken by the ids: the order of `calls_start`, so a deep page is not sorted
    const calls = this.all<StoredCall>(
      `SELECT ${CALL_COLUMNS} FROM calls WHERE ${w.sql} ORDER BY start_ms DESC, span_id DESC, trace_id DESC
       LIMIT ? OFFSET ?`,
      ...w.args,
      limit,
      offset,
    );
    if (calls.length === 0) return [];
    const probes = attemptProbes(calls);
    const attempts = this.all<StoredAttempt>(
      `WITH RECURSIVE wanted (b, hi, parent, trace) AS (
         SELECT * FROM (VALUES ${probes.map(() => '(?, ?, ?, ?)').join(', ')})
         UNION ALL SELECT b + 1, hi, parent, trace FROM wanted WHERE b < hi)
       SELECT * FROM (
         SELECT ${ATTEMPT_COLUMNS}, a.trace_id AS traceId, a.parent_span_id AS parentSpanId,
                ROW_NUMBER() OVER (PARTITION BY a.trace_id, a.parent_span_id ORDER BY a.attempt, a.start_ms, a.id) AS n,
                COUNT(*) OVER (PARTITION BY a.trace_id, a.parent_span_id) AS of
         FROM wanted w CROSS JOIN attempts a
         WHERE ${attemptBucketSql('a.start_ms')} = w.b AND a.parent_span_id = w.parent AND a.trace_id = w.trace)
       WHERE n <= ? ORDER BY n`,
      ...probes.flatMap((p) => [p.lo, p.hi, p.spanId, p.traceId]),
      MAX_ATTEMPTS_PER_CALL,
    );
    const byParent = new Map<string, AttemptRow[]>();
    const stored = new Map<string, number>();
    for (const { traceId, parentSpanId, n: _, of, ...a } of attempts) {
      const key = `${traceId}\u0001${parentSpanId}`;
      stored.set(key, of);
      const list = byParent.get(key) ?? [];
      list.push({ ...a, ok: a.ok === 1 });
      byParent.set(key, list);
    }
    return calls.map((c) => {
      const key = `${c.traceId}\u0001${c.spanId}`;
      return {
        ...c,
        attemptRows: byParent.get(key) ?? [],
        attemptsOmitted: Math.max(0, (stored.get(key) ?? 0) - MAX_ATTEMPTS_PER_CALL),
      };
    });
  }

  async dimensions(_q: TimeQuery): Promise<Dimensions> {
    const distinct = (col: string) =>
      this.all<{ v: string }>(`SELECT DISTINCT ${col} AS v FROM dims WHERE ${col} <> '' ORDER BY ${col}`).map(
        (r) => r.v,
      );
    const variants = this.all<{ v: string }>(`${VARIANTS_SQL} ORDER BY v LIMIT 100`).map((r) => r.v);
    return {
      services: distinct('service'),
      servers: distinct('server'),
      tools: distinct('tool'),
      variants,
    };
  }
}

/** The dashboard's `MetricsSource` over the embedded store. */
export class EmbeddedSource extends ShapedSource {
  constructor(store: EmbeddedStore, options: EmbeddedSourceOptions) {
    super(new EmbeddedPrimitives(store, options));
  }
}

/** The SQL conditions of a breaker (or transition) row for the filters: a server-wide breaker matches any tool. */
function breakerFilters(filters: Filters): { parts: string[]; args: string[] } {
  const parts: string[] = [];
  const args: string[] = [];
  if (filters.service !== undefined) {
    parts.push('service = ?');
    args.push(filters.service);
  }
  if (filters.server !== undefined) {
    parts.push('server = ?');
    args.push(filters.server);
  }
  if (filters.tool !== undefined) {
    parts.push("(tool = ? OR tool = '')");
    args.push(filters.tool);
  }
  if (filters.breakers !== undefined && filters.breakers.length > 0) {
    parts.push(`(server, tool) IN (VALUES ${filters.breakers.map(() => '(?, ?)').join(', ')})`);
    for (const b of filters.breakers) args.push(b.server, b.tool);
  }
  return { parts, args };
}

/** A stored call as the Calls page reads it (`CALL_COLUMNS`). */
type StoredCall = Omit<CallRow, 'attemptRows' | 'attemptsOmitted'>;

const CALL_COLUMNS = `trace_id AS traceId, span_id AS spanId, service, server, method, tool, operation, variant,
  start_ms AS startMs, duration_ms AS durationMs, outcome, attempts, error_class AS errorClass,
  error_type AS errorType, wasted_retries AS wastedRetries, wasted_time_ms AS wastedTimeMs, message`;

/** A stored attempt (`ATTEMPT_COLUMNS`), its call's key, and its rank and count among its call's attempts. */
type StoredAttempt = Omit<AttemptRow, 'ok'> & {
  ok: number;
  traceId: string;
  parentSpanId: string;
  n: number;
  of: number;
};

const ATTEMPT_COLUMNS = `a.attempt AS attempt, a.name AS name, a.start_ms AS startMs, a.duration_ms AS durationMs,
  a.ok AS ok, a.error_class AS errorClass, a.error_type AS errorType, a.decision AS decision,
  a.delay_ms AS delayMs, a.give_up_reason AS giveUpReason, a.message AS message`;

interface BreakerInstanceKey {
  readonly service: string;
  readonly instance: string;
  readonly server: string;
  readonly tool: string;
}

interface TransitionRow extends BreakerInstanceKey {
  readonly ts: number;
  readonly from_state: string;
  readonly to_state: string;
  readonly reason: string;
}

/** One instance of a breaker on the timeline: its state before the window, its transitions in it, now. */
interface InstanceHistory {
  initial?: string;
  current?: string;
  /** The `from` of its first transition in the window: its state before that one. */
  firstFrom?: string;
  firstSeen: number | undefined;
  /** Since when its data puts it in its current state (a backfilled hour is data before it was received). */
  since?: number;
  readonly events: Array<{ ts: number; to: string }>;
}

interface BreakerHistory {
  readonly server: string;
  readonly tool: string;
  readonly instances: Map<string, InstanceHistory>;
}

/** A breaker's worst state over its instances: where it is first known, then wherever a transition changes it. */
function worstChanges(q: TimeQuery, b: BreakerHistory): StateChange[] {
  const states = new Map<string, string>();
  const events: Array<{ ts: number; key: string; to: string }> = [];
  // known from the window's start if a state before it is known, else from the first data of an instance
  let knownFrom = q.to;
  for (const [k, i] of b.instances) {
    states.set(k, i.initial ?? i.firstFrom ?? i.current ?? 'closed');
    for (const e of i.events) events.push({ ts: e.ts, key: k, to: e.to });
    const from =
      i.initial !== undefined
        ? q.from
        : Math.min(
            i.events[0]?.ts ?? Number.POSITIVE_INFINITY,
            i.firstSeen ?? Number.POSITIVE_INFINITY,
            i.since ?? Number.POSITIVE_INFINITY,
          );
    knownFrom = Math.min(knownFrom, Number.isFinite(from) ? Math.max(q.from, from) : q.from);
  }
  events.sort((x, y) => x.ts - y.ts);
  const worst = (): BreakerStateName => {
    let w: BreakerStateName = 'closed';
    for (const v of states.values()) if (RANK[asState(v)] > RANK[w]) w = asState(v);
    return w;
  };
  const changes: StateChange[] = [{ server: b.server, tool: b.tool, t: knownFrom, worst: worst() }];
  for (const e of events) {
    states.set(e.key, e.to);
    const w = worst();
    if (w !== changes[changes.length - 1]!.worst)
      changes.push({ server: b.server, tool: b.tool, t: Math.max(knownFrom, e.ts), worst: w });
  }
  return changes;
}
