import { OUTCOME_VALUE_SUCCESS } from '@mcp-resilience/middleware/semconv';
import type { Statement } from 'better-sqlite3';
import type { EmbeddedStore } from '../store/embedded-store';
import { VARIANTS_SQL } from '../store/experiment-facts';
import { M } from '../store/metric-ids';
import { planRange, planSeries } from '../store/tiers';
import { asState, type InstanceBreakerState, RANK } from './breakers';
import { bucketQuantile } from './bucket-quantile';
import { embeddedExperimentData } from './experiments-embedded';
import type { ExperimentData } from './experiments-types';
import type {
  BreakerKeysPage,
  BucketPlan,
  BucketRow,
  CountRow,
  Dim,
  LatencyRow,
  MetricName,
  Primitives,
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
  BreakerTimelineRow,
  BreakerTransition,
  CallRow,
  CallsQuery,
  Dimensions,
  Filters,
  TimelineSegment,
  TimeQuery,
  TransitionMark,
} from './types';

type Col = 'service' | 'server' | 'method' | 'tool' | 'outcome' | 'error_class' | 'error_type' | 'variant';
type Row = Record<string, string | number>;

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
};

/** The `dims` column of each label; facts carry no instance. */
const COL: Readonly<Record<Exclude<Dim, 'instance'>, Col>> = {
  service: 'service',
  server: 'server',
  tool: 'tool',
  outcome: 'outcome',
  errorClass: 'error_class',
  errorType: 'error_type',
  variant: 'variant',
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
  private readonly statements = new Map<string, Statement>();
  private readonly countsCache = new Map<string, { at: number; counts: BreakerCounts }>();

  constructor(
    private readonly store: EmbeddedStore,
    private readonly options: EmbeddedSourceOptions,
  ) {}

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

  private prepare(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.store.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
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
  private sumOver(metric: number, q: TimeQuery, by: readonly Dim[], bounds = false): Row[] {
    const w = EmbeddedPrimitives.where(q.filters);
    const boundCols = bounds ? ['d.bucket_lower', 'd.bucket_le'] : [];
    const cols = [...by.map((d) => `d.${col(d)} AS ${d}`), ...boundCols];
    const group = [...by.map((d) => `d.${col(d)}`), ...boundCols];
    const sql = `SELECT ${cols.join(', ')}${cols.length ? ', ' : ''}SUM(f.value) AS v, SUM(f.count) AS c
      FROM facts f JOIN dims d ON d.id = f.dim
      WHERE f.tier = ? AND f.metric = ? AND f.bucket >= ? AND f.bucket < ?${w.sql}${group.length ? ` GROUP BY ${group.join(', ')}` : ''}`;
    const stmt = this.prepare(sql);
    const merged = new Map<string, Row>();
    const keyCols = [...by, ...(bounds ? ['bucket_lower', 'bucket_le'] : [])];
    for (const piece of planRange(q.from, q.to, this.now(), this.store.tiers)) {
      for (const row of stmt.all(piece.tier, metric, piece.from, piece.to, ...w.args) as Row[]) {
        if (row.v === null) continue;
        const key = keyCols.map((c) => row[c]).join('\u0001');
        const m = merged.get(key);
        if (m) {
          m.v = (m.v as number) + (row.v as number);
          m.c = (m.c as number) + (row.c as number);
        } else merged.set(key, { ...row });
      }
    }
    return [...merged.values()];
  }

  plan(q: TimeQuery, maxPoints: number): BucketPlan {
    const p = planSeries(q.from, q.to, this.now(), this.store.tiers, maxPoints);
    return { step: p.step, origin: p.origin, count: p.count };
  }

  async totals(metric: MetricName, q: TimeQuery, by: readonly Dim[]): Promise<CountRow[]> {
    return this.sumOver(METRIC[metric], q, by)
      .filter((r) => (r.v as number) !== 0 || (r.c as number) !== 0)
      .map((r) => ({ labels: EmbeddedPrimitives.labels(r, by), value: r.v as number, count: r.c as number }));
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
    const rows = this.prepare(sql).all(
      plan.origin,
      plan.step,
      tier.id,
      METRIC[metric],
      plan.origin,
      plan.origin + plan.count * plan.step,
      ...w.args,
    ) as Row[];
    return rows
      .filter((r) => (r.v as number) !== 0 || (r.c as number) !== 0)
      .map((r) => ({
        k: r.k as number,
        labels: EmbeddedPrimitives.labels(r, by),
        value: r.v as number,
        count: r.c as number,
      }));
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
      g.counts.set(bound, (g.counts.get(bound) ?? 0) + (r.v as number));
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

  async breakerWaiting(filters: Filters): Promise<WaitingRow[]> {
    // The latest finest bucket of each (service, instance, breaker) reported within the stale time.
    const tier = this.store.tiers[0]!;
    const since = this.now() - this.options.staleMs;
    const w = EmbeddedPrimitives.where({ ...filters, variant: undefined });
    const rows = this.prepare(
      `SELECT d.server AS server, d.tool AS tool, f.value / f.count AS level
       FROM facts f JOIN dims d ON d.id = f.dim
       JOIN (SELECT f2.dim AS dim, MAX(f2.bucket) AS bucket FROM facts f2
             WHERE f2.tier = ? AND f2.metric = ? AND f2.bucket >= ? GROUP BY f2.dim) latest
         ON latest.dim = f.dim AND latest.bucket = f.bucket
       WHERE f.tier = ? AND f.metric = ? AND f.count > 0${w.sql}`,
    ).all(tier.id, M.breakerWaiting, since, tier.id, M.breakerWaiting, ...w.args) as Array<{
      server: string;
      tool: string;
      level: number;
    }>;
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
      if (offset >= n) {
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
      this.prepare(
        `SELECT COUNT(*) FROM (SELECT 1 FROM breakers WHERE 1${where}${f.sql} GROUP BY server, tool)`,
      )
        .pluck()
        .get(...args, ...f.args) as number;
    const all = distinct('');
    const live = distinct(' AND updated >= ?', cut);
    const open = distinct(" AND state = 'open' AND updated >= ?", cut);
    const halfOpen = this.prepare(
      `SELECT COUNT(*) FROM (SELECT 1 FROM breakers b WHERE state = 'half_open' AND updated >= ?${f.sql}
         AND NOT EXISTS (SELECT 1 FROM breakers WHERE server = b.server AND tool = b.tool AND state = 'open'
                         AND updated >= ?${f.sql})
       GROUP BY server, tool)`,
    )
      .pluck()
      .get(cut, ...f.args, cut, ...f.args) as number;
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
    if (segment === 'stale') {
      return this.prepare(
        `SELECT server, tool FROM breakers WHERE 1${f.sql} GROUP BY server, tool HAVING MAX(updated) < ?
         ORDER BY server, tool LIMIT ? OFFSET ?`,
      ).all(...f.args, cut, limit, offset) as BreakerKey[];
    }
    const worse = segment === 'open' ? '' : segment === 'half_open' ? "state = 'open'" : "state <> 'closed'";
    const notWorse = worse
      ? ` AND NOT EXISTS (SELECT 1 FROM breakers WHERE server = b.server AND tool = b.tool AND ${worse}
            AND updated >= ?${f.sql})`
      : '';
    return this.prepare(
      `SELECT DISTINCT server, tool FROM breakers b WHERE state = ? AND updated >= ?${f.sql}${notWorse}
       ORDER BY server, tool LIMIT ? OFFSET ?`,
    ).all(segment, cut, ...f.args, ...(worse ? [cut, ...f.args] : []), limit, offset) as BreakerKey[];
  }

  private rawBreakers(filters: Filters): InstanceBreaker[] {
    const { parts, args } = breakerFilters(filters);
    const sql = `SELECT service, instance, server, tool, state, since, updated FROM breakers${parts.length ? ` WHERE ${parts.join(' AND ')}` : ''}`;
    return this.prepare(sql).all(...args) as InstanceBreaker[];
  }

  async breakerTimeline(q: TimeQuery): Promise<BreakerTimelineRow[]> {
    const current = this.rawBreakers(q.filters);
    // Filtered in SQL (as `rawBreakers`), and at most `maxTimelineTransitions` rows: the newest of the window.
    const { parts, args } = breakerFilters(q.filters);
    const and = parts.map((p) => ` AND ${p}`).join('');
    const limit = this.options.maxTimelineTransitions ?? MAX_TIMELINE_TRANSITIONS;
    const inWindow = (
      this.prepare(
        `SELECT ts, service, instance, server, tool, from_state, to_state FROM breaker_transitions
         WHERE ts >= ? AND ts < ?${and} ORDER BY ts DESC, id DESC LIMIT ?`,
      ).all(q.from, q.to, ...args, limit) as Array<{
        ts: number;
        service: string;
        instance: string;
        server: string;
        tool: string;
        from_state: string;
        to_state: string;
      }>
    ).reverse();
    // Cut: the states before the oldest transition kept stand for the start of the window.
    const startAt = inWindow.length >= limit ? inWindow[0]!.ts : q.from;
    const before = this.prepare(
      `SELECT service, instance, server, tool, to_state, MAX(ts) AS ts FROM breaker_transitions WHERE ts < ?${and}
       GROUP BY service, instance, server, tool LIMIT ?`,
    ).all(startAt, ...args, limit) as Array<{
      service: string;
      instance: string;
      server: string;
      tool: string;
      to_state: string;
    }>;
    type Inst = {
      initial: string | undefined;
      events: Array<{ ts: number; to: string }>;
      firstFrom?: string;
    };
    const breakers = new Map<string, { server: string; tool: string; instances: Map<string, Inst> }>();
    const inst = (r: { service: string; instance: string; server: string; tool: string }) => {
      const key = `${r.server}\u0001${r.tool}`;
      const b = breakers.get(key) ?? { server: r.server, tool: r.tool, instances: new Map() };
      breakers.set(key, b);
      const ik = `${r.service}\u0001${r.instance}`;
      const i = b.instances.get(ik) ?? { initial: undefined, events: [] };
      b.instances.set(ik, i);
      return i;
    };
    for (const r of current) {
      const i = inst(r);
      i.initial ??= undefined;
      (i as Inst & { current?: string }).firstFrom ??= undefined;
      (i as Inst & { current?: string }).current = r.state;
    }
    for (const r of before) inst(r).initial = r.to_state;
    // When each instance was first seen: a breaker has no state on the timeline before any of its data existed.
    const firstSeen = new Map<string, number>();
    const services = [...new Set(current.map((r) => r.service))];
    if (services.length > 0 && services.length <= 500) {
      for (const r of this.prepare(
        `SELECT service, instance, first_seen FROM instances WHERE service IN (${services.map(() => '?').join(', ')})`,
      ).all(...services) as Array<{ service: string; instance: string; first_seen: number }>)
        firstSeen.set(`${r.service}\u0001${r.instance}`, r.first_seen);
    }
    for (const r of inWindow) {
      const i = inst(r);
      if (i.events.length === 0) i.firstFrom = r.from_state;
      i.events.push({ ts: r.ts, to: r.to_state });
    }
    const rows: BreakerTimelineRow[] = [];
    for (const b of breakers.values()) {
      const states = new Map<string, string>();
      const events: Array<{ ts: number; key: string; to: string }> = [];
      for (const [k, i] of b.instances) {
        const cur = (i as Inst & { current?: string }).current;
        states.set(k, i.initial ?? i.firstFrom ?? cur ?? 'closed');
        for (const e of i.events) events.push({ ts: e.ts, key: k, to: e.to });
      }
      events.sort((x, y) => x.ts - y.ts);
      const worst = () => {
        let s: BreakerStateName = 'closed';
        for (const v of states.values()) if (RANK[asState(v)] > RANK[s]) s = asState(v);
        return s;
      };
      const segments: TimelineSegment[] = [];
      // known from the window's start if a state before it is known, else from the first data of an instance
      let knownFrom = q.to;
      for (const [k, i] of b.instances) {
        const firstEvent = i.events[0]?.ts ?? Number.POSITIVE_INFINITY;
        const seen = firstSeen.get(k) ?? Number.POSITIVE_INFINITY;
        const from = i.initial !== undefined ? q.from : Math.min(firstEvent, seen);
        knownFrom = Math.min(knownFrom, Number.isFinite(from) ? Math.max(q.from, from) : q.from);
      }
      let start = knownFrom;
      let state = worst();
      for (const e of events) {
        states.set(e.key, e.to);
        const next = worst();
        if (next === state) continue;
        if (e.ts > start) segments.push({ from: start, to: e.ts, state });
        start = Math.max(start, e.ts);
        state = next;
      }
      segments.push({ from: start, to: q.to, state });
      rows.push({ server: b.server, tool: b.tool === '' ? null : b.tool, segments });
    }
    return rows.sort(
      (a, b) => a.server.localeCompare(b.server) || (a.tool ?? '').localeCompare(b.tool ?? ''),
    );
  }

  async lastDataAt(filters: Filters): Promise<number | undefined> {
    const service = filters.service;
    const row = this.prepare(
      `SELECT MAX(last_seen) AS t FROM instances${service === undefined ? '' : ' WHERE service = ?'}`,
    ).get(...(service === undefined ? [] : [service])) as { t: number | null };
    return row.t ?? undefined;
  }

  async instances(q: TimeQuery): Promise<AgentInstance[]> {
    // An instance counts when the period over which it was seen overlaps the window.
    const service = q.filters.service;
    const rows = this.prepare(
      `SELECT service, instance, last_seen FROM instances WHERE last_seen >= ? AND first_seen < ?${service === undefined ? '' : ' AND service = ?'}
       ORDER BY service, instance`,
    ).all(q.from, q.to, ...(service === undefined ? [] : [service])) as Array<{
      service: string;
      instance: string;
      last_seen: number;
    }>;
    return rows.map((r) => ({ service: r.service, instance: r.instance, lastSeen: r.last_seen }));
  }

  async transitions(q: TimeQuery, limit: number): Promise<BreakerTransition[]> {
    const { parts, args } = breakerFilters(q.filters);
    const rows = this.prepare(
      `SELECT ts, service, instance, server, tool, from_state, to_state, reason FROM breaker_transitions
       WHERE ${['ts >= ?', 'ts < ?', ...parts].join(' AND ')} ORDER BY ts DESC, id DESC LIMIT ?`,
    ).all(q.from, q.to, ...args, limit) as Array<{
      ts: number;
      service: string;
      instance: string;
      server: string;
      tool: string;
      from_state: string;
      to_state: string;
      reason: string;
    }>;
    return rows.reverse().map((r) => ({
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
    return (this.prepare(`SELECT COUNT(*) AS n FROM calls WHERE ${w.sql}`).get(...w.args) as { n: number }).n;
  }

  /**
   * The newest calls of the query (a page: `offset`), each with its attempt spans: the spans of the same
   * trace whose parent is the call's span (trace id AND span id: a span id alone can be claimed by spans of
   * any trace), at most `MAX_ATTEMPTS_PER_CALL` per call, the count of the others kept.
   */
  /** Every transition of the window, counted per slice and target state in SQL (a few rows whatever the count). */
  async transitionMarks(q: TimeQuery, sliceMs: number): Promise<TransitionMark[]> {
    const { parts, args } = breakerFilters(q.filters);
    const rows = this.prepare(
      `SELECT CAST((ts - ?) / ? AS INTEGER) AS k, to_state, COUNT(*) AS n, MIN(ts) AS t,
              COUNT(DISTINCT server || char(1) || tool) AS breakers,
              MIN(printf('%020d', ts) || server || CASE WHEN tool = '' THEN '' ELSE '/' || tool END) AS example
       FROM breaker_transitions WHERE ${['ts >= ?', 'ts < ?', ...parts].join(' AND ')}
       GROUP BY k, to_state ORDER BY t`,
    ).all(q.from, sliceMs, q.from, q.to, ...args) as Array<{
      to_state: string;
      n: number;
      t: number;
      breakers: number;
      example: string;
    }>;
    return rows.map((r) => ({
      t: r.t,
      to: r.to_state,
      count: r.n,
      breakers: r.breakers,
      example: r.example.slice(20),
    }));
  }

  async recentCalls(q: CallsQuery, limit: number, offset = 0): Promise<CallRow[]> {
    const w = EmbeddedPrimitives.callsWhere(q);
    const calls = this.prepare(
      `SELECT * FROM calls WHERE ${w.sql} ORDER BY start_ms DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...w.args, limit, offset) as Array<Record<string, string | number>>;
    if (calls.length === 0) return [];
    const attempts = this.prepare(
      `SELECT * FROM (
         SELECT a.*, ROW_NUMBER() OVER (PARTITION BY a.trace_id, a.parent_span_id ORDER BY a.attempt, a.start_ms, a.id) AS n,
                COUNT(*) OVER (PARTITION BY a.trace_id, a.parent_span_id) AS of
         FROM attempts a WHERE (a.parent_span_id, a.trace_id) IN (VALUES ${calls.map(() => '(?, ?)').join(', ')}))
       WHERE n <= ? ORDER BY n`,
    ).all(...calls.flatMap((c) => [c.span_id, c.trace_id]), MAX_ATTEMPTS_PER_CALL) as Array<
      Record<string, string | number>
    >;
    const byParent = new Map<string, AttemptRow[]>();
    const stored = new Map<string, number>();
    for (const a of attempts) {
      const key = `${a.trace_id}\u0001${a.parent_span_id}`;
      stored.set(key, a.of as number);
      const list = byParent.get(key) ?? [];
      list.push({
        attempt: a.attempt as number,
        name: a.name as string,
        startMs: a.start_ms as number,
        durationMs: a.duration_ms as number,
        ok: a.ok === 1,
        errorClass: a.error_class as string,
        errorType: a.error_type as string,
        decision: a.decision as string,
        delayMs: a.delay_ms as number,
        giveUpReason: a.give_up_reason as string,
        message: a.message as string,
      });
      byParent.set(key, list);
    }
    const keyOf = (c: Record<string, string | number>) => `${c.trace_id}\u0001${c.span_id}`;
    return calls.map((c) => ({
      traceId: c.trace_id as string,
      spanId: c.span_id as string,
      service: c.service as string,
      server: c.server as string,
      method: c.method as string,
      tool: c.tool as string,
      operation: c.operation as string,
      variant: c.variant as string,
      startMs: c.start_ms as number,
      durationMs: c.duration_ms as number,
      outcome: c.outcome as string,
      attempts: c.attempts as number,
      errorClass: c.error_class as string,
      errorType: c.error_type as string,
      wastedRetries: c.wasted_retries as number,
      wastedTimeMs: c.wasted_time_ms as number,
      message: c.message as string,
      attemptRows: byParent.get(keyOf(c)) ?? [],
      attemptsOmitted: Math.max(0, (stored.get(keyOf(c)) ?? 0) - MAX_ATTEMPTS_PER_CALL),
    }));
  }

  async dimensions(_q: TimeQuery): Promise<Dimensions> {
    const distinct = (col: string) =>
      (
        this.prepare(
          `SELECT DISTINCT ${col} AS v FROM dims WHERE ${col} <> '' ORDER BY ${col}`,
        ).all() as Array<{ v: string }>
      ).map((r) => r.v);
    const variants = (this.prepare(`${VARIANTS_SQL} ORDER BY v LIMIT 100`).all() as Array<{ v: string }>).map(
      (r) => r.v,
    );
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
  constructor(
    protected readonly store: EmbeddedStore,
    options: EmbeddedSourceOptions,
  ) {
    super(new EmbeddedPrimitives(store, options));
  }

  /** Experiments (canary variants, shadow classifier): `lib/data/experiments-embedded.ts`. */
  async experimentData(q: TimeQuery): Promise<ExperimentData> {
    return embeddedExperimentData(this.store, q);
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
