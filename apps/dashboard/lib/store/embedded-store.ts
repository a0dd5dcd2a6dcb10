import type { Statement } from 'better-sqlite3';
import type { SeriesState } from '../ingest/delta';
import { LabelLimiter, type LabelName } from '../ingest/label-limiter';
import type { BreakerObservation, DimLabels, InstanceSeen, MetricBatch, TraceBatch } from '../ingest/records';
import { SERIES_BYTES_SQL, seriesRowBytes } from '../ingest/series-room';
import { StoreBusyError } from '../source-unavailable';
import { attemptBucket, attemptBucketSql } from './attempt-buckets';
import { type Db, isBusyError, openDatabase } from './database';
import { pruneShadowExamples, storeShadowExamples, VARIANTS_SQL } from './experiment-facts';
import { ALL_METRIC_IDS } from './metric-ids';
import { rehashSeriesKeys } from './rehash-series-keys';
import { asStorageFault } from './storage-fault';
import { alignDown, makeTiers, type Tier } from './tiers';

export interface EmbeddedStoreOptions {
  /** Directory of the database file, or `:memory:`. */
  readonly dataDir: string;
  readonly retentionMs: number;
  /** Failed/retried calls kept for drill-down (oldest dropped beyond). */
  readonly maxCalls: number;
  /** Attempt spans kept for drill-down (oldest dropped beyond). */
  readonly maxAttempts: number;
  /** Breaker transitions kept (oldest dropped beyond; default 100k). */
  readonly maxTransitions?: number;
  readonly now?: () => number;
  /** Points and spans later than now + this are refused (default 5 min). */
  readonly maxFutureSkewMs?: number;
  /** Distinct values kept per label; later ones are stored as `_OTHER` (default 1000). */
  readonly maxLabelValues?: number;
  /** Cumulative series tracked (rows of `cumulative_state`); points of new series beyond are refused (default 100k). */
  readonly maxCumulativeSeries?: number;
  /** Bytes of those rows (`seriesRowBytes`); points of new series beyond are refused (default 64 MiB). */
  readonly maxCumulativeSeriesBytes?: number;
}

/** Where each capped label's stored values are (read by the limiter once per label, after each reset). */
const KNOWN_VALUES: Record<LabelName, string> = {
  service:
    'SELECT service AS v FROM dims UNION SELECT service FROM breakers UNION SELECT service FROM instances UNION SELECT service FROM calls',
  instance: 'SELECT instance AS v FROM instances UNION SELECT instance FROM breakers',
  server: 'SELECT server AS v FROM dims UNION SELECT server FROM breakers UNION SELECT server FROM calls',
  tool: 'SELECT tool AS v FROM dims UNION SELECT tool FROM breakers UNION SELECT tool FROM calls',
  method: 'SELECT method AS v FROM dims UNION SELECT method FROM calls',
  outcome: 'SELECT outcome AS v FROM dims UNION SELECT outcome FROM calls',
  // the shadow's class and type are capped as classes and types
  error_class:
    'SELECT error_class AS v FROM dims UNION SELECT shadow_class FROM dims UNION SELECT error_class FROM calls',
  error_type:
    'SELECT error_type AS v FROM dims UNION SELECT shadow_type FROM dims UNION SELECT error_type FROM calls',
  state: 'SELECT state AS v FROM breakers UNION SELECT to_state FROM breaker_transitions',
  variant: `${VARIANTS_SQL} UNION SELECT variant FROM calls`,
};

/** The columns of a label set (`dims`), in the order of `dim()`'s arguments. */
const DIM_COLUMNS = [
  'service',
  'server',
  'method',
  'tool',
  'outcome',
  'error_class',
  'error_type',
  'variant',
  'bucket_lower',
  'bucket_le',
  'shadow_class',
  'shadow_type',
  'extra',
] as const;

export interface BreakerKey {
  readonly server: string;
  readonly tool: string;
}

export interface StoreEvents {
  /** After a committed ingest that changed a breaker's state (a transition or a newer gauge). */
  breakers?(changed: readonly BreakerKey[]): void;
  /** After every committed ingest. */
  ingested?(signal: 'metrics' | 'traces', count: number): void;
  /**
   * After a committed write of facts: the earliest bucket start it wrote (every tier), or `-Infinity` when
   * facts were deleted (retention). Aggregates over buckets before it are unchanged (`PieceCache`).
   */
  factsChanged?(from: number): void;
}

const MAX_STATE_CACHE = 200_000;
export const DEFAULT_MAX_CUMULATIVE_SERIES = 100_000;
export const DEFAULT_MAX_CUMULATIVE_SERIES_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_TRANSITIONS = 100_000;
const MAX_DIM_CACHE = 100_000;
const SEEN_REFRESH_MS = 3_600_000;
const TRANSITION_MATCH_MS = 120_000;

interface CachedState extends SeriesState {
  seen: number;
}

/**
 * The embedded store: the ingest's records in (one transaction per request; the OTLP mapping lives in
 * `lib/ingest`), pre-aggregated facts, breaker states, capped spans for drill-down, alert settings and
 * history. Synchronous (better-sqlite3); the queries live in `lib/data/embedded-source.ts`.
 */
export class EmbeddedStore {
  readonly db: Db;
  readonly maxFutureSkewMs: number;
  /** The cap on distinct label values, shared by every write. */
  readonly labels: LabelLimiter;
  readonly tiers: readonly Tier[];
  readonly createdAt: number;
  readonly now: () => number;
  readonly options: EmbeddedStoreOptions;
  /** The cap on tracked cumulative series (`OTLP_MAX_CUMULATIVE_SERIES`). */
  readonly maxSeries: number;
  /** Cumulative series tracked now (rows of `cumulative_state`, counted at start and after retention). */
  trackedSeries = 0;
  /** The cap on their bytes (`OTLP_MAX_CUMULATIVE_SERIES_BYTES`). */
  readonly maxSeriesBytes: number;
  /** Their bytes now (`seriesRowBytes`, counted at start and after retention, added to by new series). */
  trackedSeriesBytes = 0;
  private readonly listeners: StoreEvents[] = [];
  private readonly dims = new Map<string, number>();
  private readonly states = new Map<string, CachedState>();
  private readonly stmt;

  constructor(options: EmbeddedStoreOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    const opened = openDatabase(options.dataDir, this.now());
    this.db = opened.db;
    this.createdAt = opened.createdAt;
    this.tiers = makeTiers(options.retentionMs);
    this.maxFutureSkewMs = options.maxFutureSkewMs ?? 5 * 60_000;
    this.maxSeries = options.maxCumulativeSeries ?? DEFAULT_MAX_CUMULATIVE_SERIES;
    this.maxSeriesBytes = options.maxCumulativeSeriesBytes ?? DEFAULT_MAX_CUMULATIVE_SERIES_BYTES;
    const db = this.db;
    rehashSeriesKeys(db);
    const known = new Map<LabelName, Statement<[], string>>();
    this.labels = new LabelLimiter(options.maxLabelValues ?? 1000, (label) => {
      let stmt = known.get(label);
      if (!stmt) {
        stmt = db.prepare<[], string>(KNOWN_VALUES[label]).pluck();
        known.set(label, stmt);
      }
      return stmt.all();
    });
    this.stmt = {
      dimInsert: db.prepare<string[]>(
        `INSERT OR IGNORE INTO dims (${DIM_COLUMNS.join(', ')}) VALUES (${DIM_COLUMNS.map(() => '?').join(', ')})`,
      ),
      dimSelect: db.prepare<string[], { id: number }>(
        `SELECT id FROM dims WHERE ${DIM_COLUMNS.map((c) => `${c} = ?`).join(' AND ')}`,
      ),
      fact: db.prepare(
        `INSERT INTO facts (tier, metric, bucket, dim, value, count) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tier, metric, bucket, dim) DO UPDATE SET value = value + excluded.value, count = count + excluded.count`,
      ),
      stateGet: db.prepare<
        [string],
        { start: number; time: number; value: number; sum: number; buckets: string | null; seen: number }
      >('SELECT start, time, value, sum, buckets, seen FROM cumulative_state WHERE key = ?'),
      stateSet: db.prepare(
        `INSERT INTO cumulative_state (key, start, time, value, sum, buckets, seen) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET start = excluded.start, time = excluded.time, value = excluded.value,
           sum = excluded.sum, buckets = excluded.buckets, seen = excluded.seen`,
      ),
      breakerGet: db.prepare<unknown[], { state: string; since: number; as_of: number }>(
        'SELECT state, since, as_of FROM breakers WHERE service = ? AND instance = ? AND server = ? AND tool = ?',
      ),
      breakerUpsert: db.prepare(
        `INSERT INTO breakers (service, instance, server, tool, state, since, as_of, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (service, instance, server, tool) DO UPDATE SET state = excluded.state, since = excluded.since,
           as_of = excluded.as_of, updated = excluded.updated`,
      ),
      breakerTouch: db.prepare(
        'UPDATE breakers SET updated = ?, as_of = max(as_of, ?) WHERE service = ? AND instance = ? AND server = ? AND tool = ?',
      ),
      transitionInsert: db.prepare(
        'INSERT INTO breaker_transitions (ts, service, instance, server, tool, from_state, to_state, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      transitionExact: db.prepare<unknown[], { id: number }>(
        `SELECT id FROM breaker_transitions WHERE server = ? AND tool = ? AND ts = ? AND instance = ? AND service = ?
         AND to_state = ? LIMIT 1`,
      ),
      transitionObserved: db.prepare<unknown[], { id: number }>(
        `SELECT id FROM breaker_transitions WHERE server = ? AND tool = ? AND ts BETWEEN ? AND ? AND instance = ?
         AND service = ? AND to_state = ? AND reason = 'observed' ORDER BY ts LIMIT 1`,
      ),
      transitionReplace: db.prepare(
        'UPDATE breaker_transitions SET ts = ?, from_state = ?, reason = ? WHERE id = ?',
      ),
      instanceSeen: db.prepare(
        `INSERT INTO instances (service, instance, first_seen, last_seen, export_at, export_ms, export_from) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (service, instance) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen), export_from = iif(excluded.export_at > export_at, excluded.export_from, export_from), export_ms = iif(excluded.export_at > export_at, excluded.export_ms, export_ms), export_at = max(export_at, excluded.export_at), export_steady = iif(excluded.export_at > export_at, iif(abs(excluded.export_ms - export_ms) <= max(1000, export_ms / 10), export_steady + 1, 0), export_steady)`,
      ),
      callInsert: db.prepare(
        `INSERT OR IGNORE INTO calls (trace_id, span_id, service, instance, server, method, tool, operation, variant,
           start_ms, duration_ms, outcome, attempts, error_class, error_type, wasted_retries, wasted_time_ms, message)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      attemptInsert: db.prepare(
        `INSERT OR IGNORE INTO attempts (trace_id, span_id, parent_span_id, name, attempt, start_ms, duration_ms, ok,
           error_class, error_type, decision, delay_ms, give_up_reason, execution, source, message)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
    this.countSeries();
  }

  private countSeries(): void {
    const row = this.db
      .prepare<[], { n: number; bytes: number }>(
        `SELECT COUNT(*) AS n, ${SERIES_BYTES_SQL} AS bytes FROM cumulative_state`,
      )
      .get();
    this.trackedSeries = row?.n ?? 0;
    this.trackedSeriesBytes = row?.bytes ?? 0;
  }

  subscribe(listener: StoreEvents): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // ---------------------------------------------------------------------------------------------------------
  // ingest
  // ---------------------------------------------------------------------------------------------------------

  private run<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn)();
    } catch (error) {
      // The transaction rolled back: forget what the caches learnt inside it.
      this.states.clear();
      this.dims.clear();
      this.labels.reset();
      if (isBusyError(error)) throw new StoreBusyError('store busy', error);
      throw asStorageFault(error) ?? error;
    }
  }

  private dim(l: DimLabels): number {
    const args = [
      l.service,
      l.server,
      l.method,
      l.tool,
      l.outcome,
      l.errorClass,
      l.errorType,
      l.variant,
      l.bucketLower,
      l.bucketLe,
      l.shadowClass,
      l.shadowType,
      l.extra,
    ];
    const key = args.join('\u0001');
    const cached = this.dims.get(key);
    if (cached !== undefined) return cached;
    this.stmt.dimInsert.run(...args);
    const id = this.stmt.dimSelect.get(...args)!.id;
    if (this.dims.size >= MAX_DIM_CACHE) this.dims.clear();
    this.dims.set(key, id);
    return id;
  }

  /** The last state of a cumulative series (cache, then database). */
  seriesState(key: string): SeriesState | undefined {
    const cached = this.states.get(key);
    if (cached) return cached;
    const row = this.stmt.stateGet.get(key);
    if (!row) return undefined;
    const state: CachedState = {
      start: row.start,
      time: row.time,
      value: row.value,
      sum: row.sum,
      buckets: row.buckets ? (JSON.parse(row.buckets) as number[]) : undefined,
      seen: row.seen,
    };
    this.remember(key, state);
    return state;
  }

  private remember(key: string, state: CachedState) {
    if (this.states.size >= MAX_STATE_CACHE) this.states.clear();
    this.states.set(key, state);
  }

  /** An instance seen at `now`, with its export (time, interval, when a first export's calls began) if any. */
  private instanceSeen(i: InstanceSeen, now: number): void {
    this.stmt.instanceSeen.run(
      i.service,
      i.instance,
      now,
      now,
      i.exportAt ?? 0,
      i.exportMs ?? 0,
      i.callsFrom ?? 0,
    );
  }

  /** Writes what the ingest made of one metrics request, in one transaction. */
  writeMetrics(batch: MetricBatch): void {
    const now = this.now();
    const changed = new Map<string, BreakerKey>();
    const persist: Array<[string, CachedState]> = [];
    let added = 0;
    let addedBytes = 0;
    let factsFrom = Number.POSITIVE_INFINITY;
    this.run(() => {
      for (const i of batch.instances) this.instanceSeen(i, now);
      for (const b of batch.breakers) this.observeBreaker(b, now, changed);
      for (const { key, state } of batch.series) {
        // An unchanged state is written again at most once an hour (its `seen` keeps it from retention).
        const prev = this.states.get(key) ?? (this.seriesState(key) as CachedState | undefined);
        if (!prev) {
          added++;
          addedBytes += seriesRowBytes(key, state.buckets);
        }
        const unchanged =
          prev && prev.start === state.start && prev.value === state.value && prev.sum === state.sum;
        const fresh = unchanged && now - prev.seen < SEEN_REFRESH_MS;
        const next: CachedState = { ...state, seen: fresh ? prev.seen : now };
        if (!fresh) {
          this.stmt.stateSet.run(
            key,
            next.start,
            next.time,
            next.value,
            next.sum,
            next.buckets ? JSON.stringify(next.buckets) : null,
            next.seen,
          );
        }
        persist.push([key, next]);
      }
      factsFrom = this.writeFacts(batch.facts, now);
    });
    // Only after the commit: a rolled-back write must not leave its states in the cache.
    for (const [key, state] of persist) this.remember(key, state);
    this.trackedSeries += added;
    this.trackedSeriesBytes += addedBytes;
    if (factsFrom !== Number.POSITIVE_INFINITY) this.emitFactsChanged(factsFrom);
    this.emit(changed, 'metrics', batch.points);
  }

  /** Adds the facts of a batch to every tier still keeping their buckets; returns the earliest bucket written. */
  private writeFacts(facts: MetricBatch['facts'], now: number): number {
    const acc = new Map<
      string,
      { tier: number; metric: number; bucket: number; dim: number; value: number; count: number }
    >();
    for (const f of facts) {
      const dim = this.dim(f.labels);
      for (const tier of this.tiers) {
        const bucket = alignDown(f.timeMs, tier.res);
        if (bucket < now - tier.keepMs) continue;
        const k = `${tier.id}|${f.metric}|${bucket}|${dim}`;
        const a = acc.get(k);
        if (a) {
          a.value += f.value;
          a.count += f.count;
        } else acc.set(k, { tier: tier.id, metric: f.metric, bucket, dim, value: f.value, count: f.count });
      }
    }
    let from = Number.POSITIVE_INFINITY;
    for (const f of acc.values()) {
      this.stmt.fact.run(f.tier, f.metric, f.bucket, f.dim, f.value, f.count);
      if (f.bucket < from) from = f.bucket;
    }
    return from;
  }

  private emitFactsChanged(from: number): void {
    for (const l of this.listeners) {
      try {
        l.factsChanged?.(from);
      } catch {
        // a listener never breaks ingest
      }
    }
  }

  /** Writes what the ingest made of one traces request, in one transaction. */
  writeTraces(batch: TraceBatch): void {
    const now = this.now();
    const changed = new Map<string, BreakerKey>();
    this.run(() => {
      for (const i of batch.instances) this.instanceSeen(i, now);
      for (const b of batch.breakers) this.observeBreaker(b, now, changed);
      for (const c of batch.calls) {
        this.stmt.callInsert.run(
          c.traceId,
          c.spanId,
          c.service,
          c.instance,
          c.server,
          c.method,
          c.tool,
          c.operation,
          c.variant,
          c.startMs,
          c.durationMs,
          c.outcome,
          c.attempts,
          c.errorClass,
          c.errorType,
          c.wastedRetries,
          c.wastedTimeMs,
          c.message,
        );
      }
      storeShadowExamples(this.db, batch.shadowExamples);
      for (const t of batch.attempts) {
        this.stmt.attemptInsert.run(
          t.traceId,
          t.spanId,
          t.parentSpanId,
          t.name,
          t.attempt,
          t.startMs,
          t.durationMs,
          t.ok ? 1 : 0,
          t.errorClass,
          t.errorType,
          t.decision,
          t.delayMs,
          t.giveUpReason,
          t.execution,
          t.source,
          t.message,
        );
      }
    });
    this.emit(changed, 'traces', batch.spans);
  }

  private observeBreaker(b: BreakerObservation, now: number, changed: Map<string, BreakerKey>) {
    const key = { server: b.server, tool: b.tool };
    if (this.applyBreaker(b.service, b.instance, key, b.state, b.at, now, b.transition)) {
      changed.set(`${key.server}\u0001${key.tool}`, key);
    }
  }

  /**
   * A breaker state seen at `at` (a gauge point, or a transition event when `transition` is given). Newer
   * information wins; a transition's exact time corrects the `since` a gauge could only approximate.
   * Returns true when the breaker's current state changed.
   */
  private applyBreaker(
    service: string,
    instance: string,
    key: BreakerKey,
    state: string,
    at: number,
    now: number,
    transition: { from: string; reason: string } | undefined,
  ): boolean {
    if (state === '') return false;
    const { server, tool } = key;
    const row = this.stmt.breakerGet.get(service, instance, server, tool);
    if (transition) {
      const exact = this.stmt.transitionExact.get(server, tool, Math.round(at), instance, service, state);
      if (!exact) {
        const observed = this.stmt.transitionObserved.get(
          server,
          tool,
          Math.round(at - TRANSITION_MATCH_MS),
          Math.round(at + TRANSITION_MATCH_MS),
          instance,
          service,
          state,
        );
        if (observed)
          this.stmt.transitionReplace.run(Math.round(at), transition.from, transition.reason, observed.id);
        else {
          this.stmt.transitionInsert.run(
            Math.round(at),
            service,
            instance,
            server,
            tool,
            transition.from,
            state,
            transition.reason,
          );
        }
      }
    }
    if (!row) {
      this.stmt.breakerUpsert.run(service, instance, server, tool, state, Math.round(at), at, now);
      return true;
    }
    if (at < row.as_of) {
      if (transition && state === row.state && at < row.since) {
        this.stmt.breakerUpsert.run(service, instance, server, tool, state, Math.round(at), row.as_of, now);
      }
      return false;
    }
    if (state !== row.state) {
      this.stmt.breakerUpsert.run(service, instance, server, tool, state, Math.round(at), at, now);
      if (!transition) {
        this.stmt.transitionInsert.run(
          Math.round(at),
          service,
          instance,
          server,
          tool,
          row.state,
          state,
          'observed',
        );
      }
      return true;
    }
    this.stmt.breakerTouch.run(now, at, service, instance, server, tool);
    return false;
  }

  private emit(changed: Map<string, BreakerKey>, signal: 'metrics' | 'traces', count: number) {
    const keys = [...changed.values()];
    for (const l of this.listeners) {
      try {
        if (keys.length > 0) l.breakers?.(keys);
        l.ingested?.(signal, count);
      } catch {
        // a listener never breaks ingest
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------
  // retention
  // ---------------------------------------------------------------------------------------------------------

  /** Drops what is past its tier's or the store's retention, and spans beyond the caps. */
  enforceRetention(): { readonly deleted: number } {
    const now = this.now();
    const cutoff = now - this.options.retentionMs;
    let deleted = 0;
    const db = this.db;
    const delFacts = db.prepare('DELETE FROM facts WHERE tier = ? AND metric = ? AND bucket < ?');
    this.run(() => {
      for (const tier of this.tiers) {
        for (const metric of ALL_METRIC_IDS)
          deleted += delFacts.run(tier.id, metric, now - tier.keepMs - tier.res).changes;
      }
      deleted += db
        .prepare(
          'DELETE FROM breaker_transitions WHERE ts < ? OR id <= (SELECT MAX(id) FROM breaker_transitions) - ?',
        )
        .run(cutoff, this.options.maxTransitions ?? DEFAULT_MAX_TRANSITIONS).changes;
      deleted += db.prepare('DELETE FROM breakers WHERE updated < ?').run(cutoff).changes;
      deleted += db.prepare('DELETE FROM instances WHERE last_seen < ?').run(cutoff).changes;
      deleted += db
        .prepare('DELETE FROM cumulative_state WHERE seen < ?')
        .run(cutoff - SEEN_REFRESH_MS).changes;
      deleted += db
        .prepare('DELETE FROM calls WHERE start_ms < ? OR id <= (SELECT MAX(id) FROM calls) - ?')
        .run(cutoff, this.options.maxCalls).changes;
      // by time through the bucket (the index's first column), then by the cap
      deleted += db
        .prepare(
          `DELETE FROM attempts WHERE (${attemptBucketSql()} <= ? AND start_ms < ?)
           OR id <= (SELECT MAX(id) FROM attempts) - ?`,
        )
        .run(attemptBucket(cutoff), cutoff, this.options.maxAttempts).changes;
      deleted += pruneShadowExamples(db, cutoff);
      // Label sets no fact uses any more: their values free room under the label caps.
      deleted += db
        .prepare('DELETE FROM dims WHERE id NOT IN (SELECT DISTINCT dim FROM facts)')
        .run().changes;
    });
    this.states.clear();
    this.dims.clear();
    this.labels.reset();
    this.countSeries();
    this.emitFactsChanged(Number.NEGATIVE_INFINITY);
    return { deleted };
  }
}
