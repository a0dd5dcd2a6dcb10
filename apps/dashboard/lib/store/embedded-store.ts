import {
  ATTR_ERROR_CLASS,
  ATTR_ERROR_TYPE,
  ATTR_FROM_STATE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON,
  ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_EXECUTION,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_OPERATION,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_WASTED_RETRIES,
  ATTR_MCP_RESILIENCE_WASTED_TIME_MS,
  ATTR_MCP_SERVER,
  ATTR_OUTCOME,
  ATTR_SERVICE_INSTANCE_ID,
  ATTR_SERVICE_NAME,
  ATTR_STATE,
  ATTR_TO_STATE,
  EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  OUTCOME_VALUE_SUCCESS,
  SPAN_MCP_RESILIENCE_CALL,
} from '@mcp-resilience/middleware/semconv';
import { cumulativeToDelta, type Delta, type SeriesState } from '../ingest/delta';
import type { Attrs, MetricsRequest, Span, TracesRequest } from '../otlp/model';
import { type IngestResult, type OtlpSink, StoreBusyError } from '../otlp/receiver';
import { type Db, isBusyError, openDatabase } from './database';
import {
  bucketExtra,
  ensureExperimentTables,
  pruneShadowExamples,
  shadowOutcome,
  storeShadowExample,
  variantOf,
} from './experiment-facts';
import { ALL_METRIC_IDS, M, METRIC_IDS } from './metric-ids';
import { alignDown, makeTiers, type Tier } from './tiers';

export interface EmbeddedStoreOptions {
  /** Directory of the database file, or `:memory:`. */
  readonly dataDir: string;
  readonly retentionMs: number;
  /** Failed/retried calls kept for drill-down (oldest dropped beyond). */
  readonly maxCalls: number;
  /** Attempt spans kept for drill-down (oldest dropped beyond). */
  readonly maxAttempts: number;
  readonly now?: () => number;
}

export interface BreakerKey {
  readonly server: string;
  readonly tool: string;
}

export interface StoreEvents {
  /** After a committed ingest that changed a breaker's state (a transition or a newer gauge). */
  breakers?(changed: readonly BreakerKey[]): void;
  /** After every committed ingest. */
  ingested?(signal: 'metrics' | 'traces', count: number): void;
}

const MAX_STATE_CACHE = 200_000;
const MAX_DIM_CACHE = 100_000;
const SEEN_REFRESH_MS = 3_600_000;
const TRANSITION_MATCH_MS = 120_000;

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) || 0 : 0);

function stableKey(attrs: Attrs): string {
  const keys = Object.keys(attrs).sort();
  let out = '';
  for (const k of keys) out += `${k}\u0001${JSON.stringify(attrs[k])}\u0002`;
  return out;
}

interface CachedState extends SeriesState {
  seen: number;
}

/**
 * The embedded store: OTLP in (one transaction per request), pre-aggregated facts, breaker states, capped
 * spans for drill-down, alert settings and history. Synchronous (better-sqlite3); the queries live in
 * `lib/data/embedded-source.ts`.
 */
export class EmbeddedStore implements OtlpSink {
  readonly db: Db;
  readonly tiers: readonly Tier[];
  readonly createdAt: number;
  readonly now: () => number;
  readonly options: EmbeddedStoreOptions;
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
    const db = this.db;
    ensureExperimentTables(db);
    this.stmt = {
      dimInsert: db.prepare(
        'INSERT OR IGNORE INTO dims (service, server, method, tool, outcome, error_class, error_type, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      dimSelect: db.prepare<unknown[], { id: number }>(
        'SELECT id FROM dims WHERE service = ? AND server = ? AND method = ? AND tool = ? AND outcome = ? AND error_class = ? AND error_type = ? AND extra = ?',
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
        `INSERT INTO instances (service, instance, first_seen, last_seen) VALUES (?, ?, ?, ?)
         ON CONFLICT (service, instance) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)`,
      ),
      callInsert: db.prepare(
        `INSERT OR IGNORE INTO calls (trace_id, span_id, service, instance, server, method, tool, operation, start_ms,
           duration_ms, outcome, attempts, error_class, error_type, wasted_retries, wasted_time_ms, message)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      attemptInsert: db.prepare(
        `INSERT OR IGNORE INTO attempts (trace_id, span_id, parent_span_id, name, attempt, start_ms, duration_ms, ok,
           error_class, error_type, decision, delay_ms, give_up_reason, execution, source, message)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
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
      if (isBusyError(error)) throw new StoreBusyError('store busy');
      throw error;
    }
  }

  private dim(
    service: string,
    server: string,
    method: string,
    tool: string,
    outcome: string,
    errorClass: string,
    errorType: string,
    extra: string,
  ): number {
    const key = `${service}\u0001${server}\u0001${method}\u0001${tool}\u0001${outcome}\u0001${errorClass}\u0001${errorType}\u0001${extra}`;
    const cached = this.dims.get(key);
    if (cached !== undefined) return cached;
    const args = [service, server, method, tool, outcome, errorClass, errorType, extra];
    this.stmt.dimInsert.run(...args);
    const id = this.stmt.dimSelect.get(...args)!.id;
    if (this.dims.size >= MAX_DIM_CACHE) this.dims.clear();
    this.dims.set(key, id);
    return id;
  }

  private state(key: string): CachedState | undefined {
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

  /** Takes an OTLP metrics request (one transaction). */
  metrics(request: MetricsRequest): IngestResult {
    const now = this.now();
    const changed = new Map<string, BreakerKey>();
    const states = new Map<string, CachedState>();
    let count = 0;
    this.run(() => {
      const acc = new Map<
        string,
        { tier: number; metric: number; bucket: number; dim: number; value: number; count: number }
      >();
      const add = (metric: number, timeMs: number, dim: number, value: number, n: number) => {
        for (const tier of this.tiers) {
          const bucket = alignDown(timeMs, tier.res);
          if (bucket < now - tier.keepMs) continue;
          const k = `${tier.id}|${metric}|${bucket}|${dim}`;
          const a = acc.get(k);
          if (a) {
            a.value += value;
            a.count += n;
          } else acc.set(k, { tier: tier.id, metric, bucket, dim, value, count: n });
        }
      };
      for (const rm of request.resources) {
        const service = text(rm.resource[ATTR_SERVICE_NAME]) || 'unknown_service';
        const instance = text(rm.resource[ATTR_SERVICE_INSTANCE_ID]);
        const resourceKey = stableKey(rm.resource);
        if (rm.scopes.some((sm) => sm.metrics.some((m) => m.points.length > 0))) {
          this.stmt.instanceSeen.run(service, instance, now, now);
        }
        for (const sm of rm.scopes) {
          for (const metric of sm.metrics) {
            if (metric.type === 'gauge') {
              if (metric.name !== METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE) continue;
              for (const p of metric.points) {
                count++;
                if (p.value !== 1) continue;
                const key = {
                  server: text(p.attributes[ATTR_MCP_SERVER]),
                  tool: text(p.attributes[ATTR_GEN_AI_TOOL_NAME]),
                };
                const state = text(p.attributes[ATTR_STATE]);
                if (this.applyBreaker(service, instance, key, state, p.timeMs, now, undefined)) {
                  changed.set(`${key.server}\u0001${key.tool}`, key);
                }
              }
              continue;
            }
            const metricId = METRIC_IDS.get(metric.name);
            if (metricId === undefined) continue;
            const cumulative = metric.temporality !== 1;
            for (const p of metric.points) {
              count++;
              const a = p.attributes;
              let delta: Delta | undefined;
              const isHistogram = metric.type === 'histogram';
              const value = isHistogram ? (p as { count: number }).count : (p as { value: number }).value;
              const sum = isHistogram ? (p as { sum: number }).sum : 0;
              // Experiments: a variant's call durations keep their bucket counts (its p95).
              const variantBuckets =
                metricId === M.callDuration && variantOf(a) !== ''
                  ? (p as { buckets?: readonly number[] }).buckets
                  : undefined;
              if (cumulative) {
                const key = `${metric.name}\u0000${resourceKey}\u0000${sm.scope}\u0000${stableKey(a)}`;
                const prev = states.get(key) ?? this.state(key);
                const r = cumulativeToDelta(
                  prev,
                  { startMs: p.startMs, timeMs: p.timeMs, value, sum, buckets: variantBuckets },
                  this.createdAt,
                );
                if (r.next) {
                  const unchanged =
                    prev &&
                    prev.start === r.next.start &&
                    prev.value === r.next.value &&
                    prev.sum === r.next.sum;
                  const seen = unchanged && now - prev.seen < SEEN_REFRESH_MS ? prev.seen : -1;
                  const next: CachedState = { ...r.next, seen: seen === -1 ? now : seen };
                  if (seen === -1) states.set(key, next);
                  this.remember(key, next);
                }
                delta = r.delta;
              } else {
                delta = { value, sum, buckets: variantBuckets };
              }
              if (!delta || (delta.value === 0 && delta.sum === 0)) continue;
              const extra =
                metricId === M.transitions
                  ? `${text(a[ATTR_FROM_STATE])}>${text(a[ATTR_TO_STATE])}`
                  : variantOf(a);
              const dim = this.dim(
                service,
                text(a[ATTR_MCP_SERVER]),
                text(a[ATTR_MCP_METHOD_NAME]),
                text(a[ATTR_GEN_AI_TOOL_NAME]),
                metricId === M.shadowDisagreements ? shadowOutcome(a) : text(a[ATTR_OUTCOME]),
                text(a[ATTR_ERROR_CLASS]),
                text(a[ATTR_ERROR_TYPE]),
                extra,
              );
              if (isHistogram) add(metricId, p.timeMs, dim, delta.sum, delta.value);
              else add(metricId, p.timeMs, dim, delta.value, 0);
              if (variantBuckets && delta.buckets) {
                const bounds = (p as { bounds: readonly number[] }).bounds;
                for (const [i, n] of delta.buckets.entries()) {
                  if (n <= 0) continue;
                  const bucketDim = this.dim(
                    service,
                    text(a[ATTR_MCP_SERVER]),
                    text(a[ATTR_MCP_METHOD_NAME]),
                    text(a[ATTR_GEN_AI_TOOL_NAME]),
                    text(a[ATTR_OUTCOME]),
                    text(a[ATTR_ERROR_CLASS]),
                    text(a[ATTR_ERROR_TYPE]),
                    bucketExtra(bounds, i, variantOf(a)),
                  );
                  add(M.callDurationBucket, p.timeMs, bucketDim, n, 0);
                }
              }
            }
          }
        }
      }
      for (const [key, s] of states) {
        this.stmt.stateSet.run(
          key,
          s.start,
          s.time,
          s.value,
          s.sum,
          s.buckets ? JSON.stringify(s.buckets) : null,
          s.seen,
        );
      }
      for (const f of acc.values()) this.stmt.fact.run(f.tier, f.metric, f.bucket, f.dim, f.value, f.count);
    });
    this.emit(changed, 'metrics', count);
    return { rejected: 0 };
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

  /** Takes an OTLP traces request (one transaction): breaker transitions, and failed/retried calls. */
  traces(request: TracesRequest): IngestResult {
    const now = this.now();
    const changed = new Map<string, BreakerKey>();
    let count = 0;
    this.run(() => {
      for (const rs of request.resources) {
        const service = text(rs.resource[ATTR_SERVICE_NAME]) || 'unknown_service';
        const instance = text(rs.resource[ATTR_SERVICE_INSTANCE_ID]);
        if (rs.scopes.some((ss) => ss.spans.length > 0))
          this.stmt.instanceSeen.run(service, instance, now, now);
        for (const ss of rs.scopes) {
          for (const span of ss.spans) {
            count++;
            for (const e of span.events) {
              if (e.name !== EVENT_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITION) continue;
              const a = e.attributes;
              const key = { server: text(a[ATTR_MCP_SERVER]), tool: text(a[ATTR_GEN_AI_TOOL_NAME]) };
              const to = text(a[ATTR_TO_STATE]);
              const from = text(a[ATTR_FROM_STATE]);
              const reason = text(a[ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_REASON]);
              if (this.applyBreaker(service, instance, key, to, e.timeMs, now, { from, reason })) {
                changed.set(`${key.server}\u0001${key.tool}`, key);
              }
            }
            if (span.name === SPAN_MCP_RESILIENCE_CALL) this.storeCall(service, instance, span);
            else if (span.attributes[ATTR_MCP_RESILIENCE_ATTEMPT] !== undefined) {
              this.storeAttempt(span);
              storeShadowExample(this.db, service, span);
            }
          }
        }
      }
    });
    this.emit(changed, 'traces', count);
    return { rejected: 0 };
  }

  private storeCall(service: string, instance: string, span: Span) {
    const a = span.attributes;
    const outcome = text(a[ATTR_MCP_RESILIENCE_OUTCOME]);
    const attempts = num(a[ATTR_MCP_RESILIENCE_ATTEMPTS]);
    if (outcome === OUTCOME_VALUE_SUCCESS && attempts <= 1) return;
    const classification = span.events.find(
      (e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION,
    )?.attributes;
    this.stmt.callInsert.run(
      span.traceId,
      span.spanId,
      service,
      instance,
      text(a[ATTR_MCP_SERVER]),
      text(a[ATTR_MCP_METHOD_NAME]),
      text(a[ATTR_GEN_AI_TOOL_NAME]),
      text(a[ATTR_MCP_RESILIENCE_OPERATION]),
      span.startMs,
      Math.max(0, span.endMs - span.startMs),
      outcome || 'unknown',
      attempts,
      text(a[ATTR_ERROR_CLASS] ?? classification?.[ATTR_ERROR_CLASS]),
      text(a[ATTR_ERROR_TYPE] ?? classification?.[ATTR_ERROR_TYPE]),
      num(a[ATTR_MCP_RESILIENCE_WASTED_RETRIES]),
      num(a[ATTR_MCP_RESILIENCE_WASTED_TIME_MS]),
      span.statusMessage,
    );
  }

  private storeAttempt(span: Span) {
    const a = span.attributes;
    const attempt = num(a[ATTR_MCP_RESILIENCE_ATTEMPT]);
    const ok = span.statusCode !== 2;
    if (ok && attempt <= 1) return;
    const c = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes ?? {};
    this.stmt.attemptInsert.run(
      span.traceId,
      span.spanId,
      span.parentSpanId,
      span.name,
      attempt,
      span.startMs,
      Math.max(0, span.endMs - span.startMs),
      ok ? 1 : 0,
      text(c[ATTR_ERROR_CLASS] ?? a[ATTR_ERROR_CLASS]),
      text(c[ATTR_ERROR_TYPE] ?? a[ATTR_ERROR_TYPE]),
      text(c[ATTR_MCP_RESILIENCE_DECISION]),
      num(c[ATTR_MCP_RESILIENCE_DELAY_MS]),
      text(c[ATTR_MCP_RESILIENCE_GIVE_UP_REASON]),
      text(c[ATTR_MCP_RESILIENCE_EXECUTION]),
      text(c[ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE]),
      text(c[ATTR_MCP_RESILIENCE_ERROR_MESSAGE]) || (ok ? '' : span.statusMessage),
    );
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
      deleted += db.prepare('DELETE FROM breaker_transitions WHERE ts < ?').run(cutoff).changes;
      deleted += db.prepare('DELETE FROM breakers WHERE updated < ?').run(cutoff).changes;
      deleted += db.prepare('DELETE FROM instances WHERE last_seen < ?').run(cutoff).changes;
      deleted += db
        .prepare('DELETE FROM cumulative_state WHERE seen < ?')
        .run(cutoff - SEEN_REFRESH_MS).changes;
      deleted += db.prepare('DELETE FROM alert_history WHERE at < ?').run(cutoff).changes;
      deleted += db.prepare('DELETE FROM alert_deliveries WHERE at < ?').run(cutoff).changes;
      deleted += db
        .prepare('DELETE FROM calls WHERE start_ms < ? OR id <= (SELECT MAX(id) FROM calls) - ?')
        .run(cutoff, this.options.maxCalls).changes;
      deleted += db
        .prepare('DELETE FROM attempts WHERE start_ms < ? OR id <= (SELECT MAX(id) FROM attempts) - ?')
        .run(cutoff, this.options.maxAttempts).changes;
      deleted += pruneShadowExamples(db, cutoff);
    });
    this.states.clear();
    return { deleted };
  }
}
