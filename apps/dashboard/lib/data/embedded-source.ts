import { ERROR_CLASSES } from '@mcp-resilience/middleware';
import {
  OUTCOME_VALUE_FAILURE,
  OUTCOME_VALUE_REJECTED,
  OUTCOME_VALUE_SUCCESS,
} from '@mcp-resilience/middleware/semconv';
import type { Statement } from 'better-sqlite3';
import type { EmbeddedStore } from '../store/embedded-store';
import { M } from '../store/metric-ids';
import { planRange, planSeries } from '../store/tiers';
import {
  type AggregatedBreaker,
  aggregateBreakers,
  asState,
  breakerSummaries,
  compareTiles,
  RANK,
} from './breakers';
import { embeddedExperimentData } from './experiments-embedded';
import type { ExperimentData } from './experiments-types';
import { MAX_TRANSITIONS, type MetricsSource, roundSeconds } from './metrics-source';
import type {
  AgentInstance,
  AttemptRow,
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

type Col = 'service' | 'server' | 'method' | 'tool' | 'outcome' | 'error_class' | 'error_type' | 'extra';
type Row = Record<string, string | number>;

const ERROR_CLASS_KEYS = ERROR_CLASSES;
const SUCCESS = OUTCOME_VALUE_SUCCESS;
const FAILURE = OUTCOME_VALUE_FAILURE;
const REJECTED = OUTCOME_VALUE_REJECTED;

export interface EmbeddedSourceOptions {
  /** A breaker whose instances all stopped reporting for this long is shown as stale and not counted. */
  readonly staleMs: number;
  readonly maxPoints?: number;
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

/** `MetricsSource` over the embedded store: every panel reads pre-aggregated facts, never raw data. */
export class EmbeddedSource implements MetricsSource {
  readonly kind = 'embedded' as const;
  readonly capabilities = { traces: true, push: true } as const;
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly store: EmbeddedStore,
    private readonly options: EmbeddedSourceOptions,
  ) {}

  subscribe(listener: {
    breakers(changed: ReadonlyArray<{ server: string; tool: string }>): void;
    ingested(): void;
  }) {
    return this.store.subscribe({
      breakers: (c) => listener.breakers(c),
      ingested: () => listener.ingested(),
    });
  }

  /** Experiments (canary variants, shadow classifier): `lib/data/experiments-embedded.ts`. */
  async experimentData(q: TimeQuery): Promise<ExperimentData> {
    return embeddedExperimentData(this.store, q);
  }

  private prepare(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.store.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private static where(
    filters: Filters,
    extra: Partial<Record<Col, string>> = {},
  ): { sql: string; args: string[] } {
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
    for (const [col, value] of Object.entries(extra)) add(col as Col, value);
    return { sql: parts.length > 0 ? ` AND ${parts.join(' AND ')}` : '', args };
  }

  /** Totals of one metric over [from, to), grouped by label columns. */
  private totals(
    metric: number,
    q: TimeQuery,
    group: Col[],
    match: Partial<Record<Col, string>> = {},
  ): Row[] {
    const now = this.store.now();
    const w = EmbeddedSource.where(q.filters, match);
    const cols = group.map((c) => `d.${c} AS ${c}`).join(', ');
    const sql = `SELECT ${cols}${cols ? ', ' : ''}SUM(f.value) AS v, SUM(f.count) AS c FROM facts f JOIN dims d ON d.id = f.dim
      WHERE f.tier = ? AND f.metric = ? AND f.bucket >= ? AND f.bucket < ?${w.sql}${group.length ? ` GROUP BY ${group.map((c) => `d.${c}`).join(', ')}` : ''}`;
    const stmt = this.prepare(sql);
    const merged = new Map<string, Row>();
    for (const piece of planRange(q.from, q.to, now, this.store.tiers)) {
      for (const row of stmt.all(piece.tier, metric, piece.from, piece.to, ...w.args) as Row[]) {
        if (row.v === null) continue;
        const key = group.map((c) => row[c]).join('\u0001');
        const m = merged.get(key);
        if (m) {
          m.v = (m.v as number) + (row.v as number);
          m.c = (m.c as number) + (row.c as number);
        } else merged.set(key, { ...row });
      }
    }
    return [...merged.values()];
  }

  /** A metric bucketed by the down-sampling plan, grouped by label columns. */
  private series(metric: number, q: TimeQuery, group: Col[], maxPoints?: number) {
    const now = this.store.now();
    const plan = planSeries(q.from, q.to, now, this.store.tiers, maxPoints ?? this.options.maxPoints ?? 200);
    const w = EmbeddedSource.where(q.filters);
    const cols = group.map((c) => `d.${c} AS ${c}`).join(', ');
    const sql = `SELECT CAST((f.bucket - ?) / ? AS INTEGER) AS k${cols ? `, ${cols}` : ''}, SUM(f.value) AS v, SUM(f.count) AS c
      FROM facts f JOIN dims d ON d.id = f.dim
      WHERE f.tier = ? AND f.metric = ? AND f.bucket >= ? AND f.bucket < ?${w.sql}
      GROUP BY k${group.map((c) => `, d.${c}`).join('')}`;
    const rows = this.prepare(sql).all(
      plan.origin,
      plan.step,
      plan.tier,
      metric,
      plan.origin,
      plan.origin + plan.count * plan.step,
      ...w.args,
    ) as Row[];
    return { plan, rows };
  }

  private static sum(rows: Row[], pick: (r: Row) => boolean = () => true): number {
    let s = 0;
    for (const r of rows) if (pick(r)) s += r.v as number;
    return s;
  }

  private countsOf(q: TimeQuery) {
    const calls = this.totals(M.calls, q, ['outcome']);
    const retries = this.totals(M.retries, q, ['outcome']);
    const wastedTime = this.totals(M.wastedTime, q, []);
    const mttf = this.totals(M.callDuration, q, [], {
      outcome: FAILURE,
      error_class: 'non_retryable' satisfies (typeof ERROR_CLASSES)[number],
    });
    const byOutcome = (rows: Row[], o: string) => EmbeddedSource.sum(rows, (r) => r.outcome === o);
    const retriesTotal = EmbeddedSource.sum(retries);
    const successful = byOutcome(retries, SUCCESS);
    const mttfCount = mttf.reduce((s, r) => s + (r.c as number), 0);
    const mttfSum = EmbeddedSource.sum(mttf);
    return {
      calls: {
        total: EmbeddedSource.sum(calls),
        success: byOutcome(calls, SUCCESS),
        failure: byOutcome(calls, FAILURE),
        rejected: byOutcome(calls, REJECTED),
      },
      retries: {
        total: retriesTotal,
        successful,
        efficiency: retriesTotal > 0 ? successful / retriesTotal : null,
      },
      wastedRetries: byOutcome(retries, FAILURE),
      wastedRetryTimeSeconds: roundSeconds(EmbeddedSource.sum(wastedTime)),
      mttfNonRetryableSeconds: mttfCount > 0 ? roundSeconds(mttfSum / mttfCount) : null,
    };
  }

  async summary(q: TimeQuery): Promise<Summary> {
    const counts = this.countsOf(q);
    const errors = this.totals(M.errors, q, ['error_class', 'error_type']);
    const byClass = { retryable: 0, non_retryable: 0, conditional: 0 };
    const byType: Record<string, number> = {};
    for (const r of errors) {
      const cls = r.error_class as string;
      if (cls === 'retryable' || cls === 'non_retryable' || cls === 'conditional')
        byClass[cls] += r.v as number;
      const type = (r.error_type as string) || '_OTHER';
      byType[type] = (byType[type] ?? 0) + (r.v as number);
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
      breakers: await this.breakers(q),
    };
  }

  async headline(q: TimeQuery): Promise<Headline> {
    const counts = this.countsOf(q);
    const breakers = await this.breakers(q);
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
    const rows = this.totals(M.retries, q, ['server', 'outcome']);
    const by = new Map<string, { server: string; successful: number; total: number }>();
    for (const r of rows) {
      const server = r.server as string;
      const t = by.get(server) ?? { server, successful: 0, total: 0 };
      t.total += r.v as number;
      if (r.outcome === SUCCESS) t.successful += r.v as number;
      by.set(server, t);
    }
    return [...by.values()].sort((a, b) => a.server.localeCompare(b.server));
  }

  async efficiencySeries(q: TimeQuery): Promise<Series<RatioPoint>> {
    const { plan, rows } = this.series(M.retries, q, ['outcome']);
    const points: RatioPoint[] = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      successful: 0,
      total: 0,
    }));
    for (const r of rows) {
      const p = points[r.k as number] as { successful: number; total: number } | undefined;
      if (!p) continue;
      p.total += r.v as number;
      if (r.outcome === SUCCESS) p.successful += r.v as number;
    }
    return { step: plan.step, points };
  }

  async callSeries(q: TimeQuery): Promise<Series<CallsPoint>> {
    const { plan, rows } = this.series(M.calls, q, ['outcome']);
    const points: CallsPoint[] = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      success: 0,
      failure: 0,
      rejected: 0,
    }));
    for (const r of rows) {
      const p = points[r.k as number] as Record<string, number> | undefined;
      const o = r.outcome as string;
      if (p && (o === SUCCESS || o === FAILURE || o === REJECTED)) p[o] = (p[o] ?? 0) + (r.v as number);
    }
    return { step: plan.step, points };
  }

  async errorSeries(q: TimeQuery, by: 'class' | 'type'): Promise<Series<KeyedPoint>> {
    const col: Col = by === 'class' ? 'error_class' : 'error_type';
    const { plan, rows } = this.series(M.errors, q, [col]);
    const points: KeyedPoint[] = Array.from({ length: plan.count }, (_, k) => ({
      t: plan.origin + k * plan.step,
      values: (by === 'class' ? { retryable: 0, non_retryable: 0, conditional: 0 } : {}) as Record<
        string,
        number
      >,
    }));
    for (const r of rows) {
      const p = points[r.k as number];
      if (!p) continue;
      const key = (r[col] as string) || '_OTHER';
      p.values[key] = (p.values[key] ?? 0) + (r.v as number);
    }
    return { step: plan.step, points };
  }

  async errorBreakdown(q: TimeQuery, by: BreakdownBy): Promise<BreakdownRow[]> {
    const col: Col = by === 'class' ? 'error_class' : by === 'type' ? 'error_type' : by;
    const rows = this.totals(M.errors, q, [col]);
    const result = rows
      .map((r) => ({
        key: (r[col] as string) || (by === 'tool' ? '(no tool)' : '_OTHER'),
        count: r.v as number,
      }))
      .filter((r) => r.count > 0)
      .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
    if (by === 'class') {
      for (const k of ERROR_CLASS_KEYS)
        if (!result.some((r) => r.key === k)) result.push({ key: k, count: 0 });
    }
    return result;
  }

  private instanceBreakers(filters: Filters): InstanceBreaker[] {
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
    const sql = `SELECT service, instance, server, tool, state, since, updated FROM breakers${parts.length ? ` WHERE ${parts.join(' AND ')}` : ''}`;
    return this.prepare(sql).all(...args) as InstanceBreaker[];
  }

  private aggregateBreakers(filters: Filters): AggregatedBreaker[] {
    const now = this.store.now();
    return aggregateBreakers(
      this.instanceBreakers(filters).map((r) => ({ ...r, stale: now - r.updated > this.options.staleMs })),
    );
  }

  async breakers(q: Pick<TimeQuery, 'filters'>): Promise<BreakerSummary[]> {
    return breakerSummaries(this.aggregateBreakers(q.filters));
  }

  async breakerTiles(q: TimeQuery): Promise<BreakerTile[]> {
    const aggregated = this.aggregateBreakers(q.filters);
    const totals = this.totals(M.calls, q, ['server', 'tool', 'outcome']);
    const { plan, rows } = this.series(M.calls, q, ['server', 'tool', 'outcome'], 30);
    const last = this.prepare(
      'SELECT ts, from_state, to_state, reason FROM breaker_transitions WHERE server = ? AND tool = ? ORDER BY ts DESC LIMIT 1',
    );
    const seconds = Math.max(1, (q.to - q.from) / 1000);
    const tiles: BreakerTile[] = aggregated.map((b) => {
      const mine = (r: Row) => r.server === b.server && (b.tool === '' || r.tool === b.tool);
      const success = EmbeddedSource.sum(totals, (r) => mine(r) && r.outcome === SUCCESS);
      const failure = EmbeddedSource.sum(totals, (r) => mine(r) && r.outcome === FAILURE);
      const all = EmbeddedSource.sum(totals, mine);
      const sparkline = Array.from({ length: plan.count }, (_, k) => ({
        t: plan.origin + k * plan.step,
        calls: 0,
        failures: 0,
      }));
      for (const r of rows) {
        if (!mine(r)) continue;
        const p = sparkline[r.k as number];
        if (!p) continue;
        p.calls += r.v as number;
        if (r.outcome === FAILURE) p.failures += r.v as number;
      }
      const t = last.get(b.server, b.tool) as
        | { ts: number; from_state: string; to_state: string; reason: string }
        | undefined;
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
        lastTransition: t ? { at: t.ts, from: t.from_state, to: t.to_state, reason: t.reason } : null,
      };
    });
    return tiles.sort(compareTiles);
  }

  async breakerTimeline(q: TimeQuery): Promise<BreakerTimelineRow[]> {
    const current = this.instanceBreakers(q.filters);
    const inWindow = this.prepare(
      'SELECT ts, service, instance, server, tool, from_state, to_state FROM breaker_transitions WHERE ts >= ? AND ts < ? ORDER BY ts',
    ).all(q.from, q.to) as Array<{
      ts: number;
      service: string;
      instance: string;
      server: string;
      tool: string;
      from_state: string;
      to_state: string;
    }>;
    const before = this.prepare(
      `SELECT service, instance, server, tool, to_state, MAX(ts) AS ts FROM breaker_transitions WHERE ts < ?
       GROUP BY service, instance, server, tool`,
    ).all(q.from) as Array<{
      service: string;
      instance: string;
      server: string;
      tool: string;
      to_state: string;
    }>;
    const f = q.filters;
    const keep = (r: { service: string; server: string; tool: string }) =>
      (f.service === undefined || r.service === f.service) &&
      (f.server === undefined || r.server === f.server) &&
      (f.tool === undefined || r.tool === f.tool || r.tool === '');
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
    for (const r of current.filter(keep)) {
      const i = inst(r);
      i.initial ??= undefined;
      (i as Inst & { current?: string }).firstFrom ??= undefined;
      (i as Inst & { current?: string }).current = r.state;
    }
    for (const r of before.filter(keep)) inst(r).initial = r.to_state;
    for (const r of inWindow.filter(keep)) {
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
      let start = q.from;
      let state = worst();
      for (const e of events) {
        states.set(e.key, e.to);
        const next = worst();
        if (next === state) continue;
        if (e.ts > start) segments.push({ from: start, to: e.ts, state });
        start = e.ts;
        state = next;
      }
      segments.push({ from: start, to: q.to, state });
      rows.push({ server: b.server, tool: b.tool === '' ? null : b.tool, segments });
    }
    return rows.sort(
      (a, b) => a.server.localeCompare(b.server) || (a.tool ?? '').localeCompare(b.tool ?? ''),
    );
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

  async transitions(q: TimeQuery, options: { limit?: number } = {}): Promise<BreakerTransition[]> {
    const limit = Math.max(1, Math.min(MAX_TRANSITIONS, options.limit ?? MAX_TRANSITIONS));
    const parts = ['ts >= ?', 'ts < ?'];
    const args: Array<string | number> = [q.from, q.to];
    if (q.filters.service !== undefined) {
      parts.push('service = ?');
      args.push(q.filters.service);
    }
    if (q.filters.server !== undefined) {
      parts.push('server = ?');
      args.push(q.filters.server);
    }
    if (q.filters.tool !== undefined) {
      // A per-server breaker guards every tool of its server (as in `breakers`).
      parts.push("(tool = ? OR tool = '')");
      args.push(q.filters.tool);
    }
    const rows = this.prepare(
      `SELECT ts, service, instance, server, tool, from_state, to_state, reason FROM breaker_transitions
       WHERE ${parts.join(' AND ')} ORDER BY ts DESC, id DESC LIMIT ?`,
    ).all(...args, limit) as Array<{
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

  async recentCalls(
    q: TimeQuery,
    options: { limit: number; only?: 'failed' | 'retried' },
  ): Promise<CallRow[]> {
    const parts = ['start_ms >= ?', 'start_ms < ?'];
    const args: Array<string | number> = [q.from, q.to];
    for (const [col, value] of [
      ['service', q.filters.service],
      ['server', q.filters.server],
      ['tool', q.filters.tool],
    ] as const) {
      if (value !== undefined) {
        parts.push(`${col} = ?`);
        args.push(value);
      }
    }
    if (options.only === 'failed') parts.push(`outcome <> '${SUCCESS}'`);
    if (options.only === 'retried') parts.push('attempts > 1');
    const calls = this.prepare(
      `SELECT * FROM calls WHERE ${parts.join(' AND ')} ORDER BY start_ms DESC LIMIT ?`,
    ).all(...args, Math.max(1, Math.min(500, options.limit))) as Array<Record<string, string | number>>;
    if (calls.length === 0) return [];
    const ids = calls.map((c) => c.span_id as string);
    const attempts = this.store.db
      .prepare(
        `SELECT * FROM attempts WHERE parent_span_id IN (${ids.map(() => '?').join(', ')}) ORDER BY attempt`,
      )
      .all(...ids) as Array<Record<string, string | number>>;
    const byParent = new Map<string, AttemptRow[]>();
    for (const a of attempts) {
      const list = byParent.get(a.parent_span_id as string) ?? [];
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
      byParent.set(a.parent_span_id as string, list);
    }
    return calls.map((c) => ({
      traceId: c.trace_id as string,
      spanId: c.span_id as string,
      service: c.service as string,
      server: c.server as string,
      method: c.method as string,
      tool: c.tool as string,
      operation: c.operation as string,
      startMs: c.start_ms as number,
      durationMs: c.duration_ms as number,
      outcome: c.outcome as string,
      attempts: c.attempts as number,
      errorClass: c.error_class as string,
      errorType: c.error_type as string,
      wastedRetries: c.wasted_retries as number,
      wastedTimeMs: c.wasted_time_ms as number,
      message: c.message as string,
      attemptRows: byParent.get(c.span_id as string) ?? [],
    }));
  }

  async dimensions(_q: TimeQuery): Promise<Dimensions> {
    const distinct = (col: string) =>
      (
        this.prepare(
          `SELECT DISTINCT ${col} AS v FROM dims WHERE ${col} <> '' ORDER BY ${col}`,
        ).all() as Array<{ v: string }>
      ).map((r) => r.v);
    return { services: distinct('service'), servers: distinct('server'), tools: distinct('tool') };
  }
}
