import {
  MCP_RESILIENCE_CALL_DURATION_BUCKETS,
  OUTCOME_VALUE_FAILURE,
} from '@mcp-resilience/middleware/semconv';
import type { EmbeddedStore } from '../store/embedded-store';
import { M } from '../store/metric-ids';
import { planRange } from '../store/tiers';
import type { DisagreementCount, ErrorClassCount, ExperimentData, ShadowExample } from './experiments-types';
import type { TimeQuery } from './types';
import { byKey, variantTally } from './variant-tally';

type Row = {
  variant: string;
  outcome: string;
  error_class: string;
  error_type: string;
  bucket_le: string;
  shadow_class: string;
  shadow_type: string;
  v: number;
  c: number;
};

/** Examples returned at most. */
const MAX_EXAMPLES = 500;

/** ` AND col = ?` for each of the page's filters (service, server, tool), the columns prefixed with `prefix`. */
function filterSql(q: TimeQuery, prefix: string): { sql: string; args: string[] } {
  let sql = '';
  const args: string[] = [];
  for (const [col, value] of [
    ['service', q.filters.service],
    ['server', q.filters.server],
    ['tool', q.filters.tool],
  ] as const) {
    if (value === undefined) continue;
    sql += ` AND ${prefix}${col} = ?`;
    args.push(value);
  }
  return { sql, args };
}

/** Sums of one metric over [from, to) by variant, outcome, class, type, bucket and shadow (the page's filters). */
function totals(store: EmbeddedStore, metric: number, q: TimeQuery): Row[] {
  const { sql, args } = filterSql(q, 'd.');
  const stmt = store.db.prepare(
    `SELECT d.variant AS variant, d.outcome AS outcome, d.error_class AS error_class, d.error_type AS error_type,
       d.bucket_le AS bucket_le, d.shadow_class AS shadow_class, d.shadow_type AS shadow_type,
       SUM(f.value) AS v, SUM(f.count) AS c
     FROM facts f JOIN dims d ON d.id = f.dim
     WHERE f.tier = ? AND f.metric = ? AND f.bucket >= ? AND f.bucket < ?${sql}
     GROUP BY d.variant, d.outcome, d.error_class, d.error_type, d.bucket_le, d.shadow_class, d.shadow_type`,
  );
  const rows: Row[] = [];
  for (const piece of planRange(q.from, q.to, store.now(), store.tiers)) {
    rows.push(...(stmt.all(piece.tier, metric, piece.from, piece.to, ...args) as Row[]));
  }
  return rows;
}

/** The experiments' numbers from the embedded store's facts (and its examples of disagreements). */
export function embeddedExperimentData(store: EmbeddedStore, q: TimeQuery): ExperimentData {
  const tally = variantTally();
  for (const r of totals(store, M.calls, q)) tally.call(r.variant, r.outcome, r.v);
  for (const r of totals(store, M.retries, q)) tally.retry(r.variant, r.outcome, r.v);
  for (const r of totals(store, M.callDuration, q)) {
    if (r.outcome === OUTCOME_VALUE_FAILURE && r.error_class === 'non_retryable') {
      tally.nonRetryable(r.variant, r.v, r.c);
    }
  }
  for (const r of totals(store, M.callDurationBucket, q)) {
    tally.bucket(r.variant, r.bucket_le, r.v);
  }
  const errors = new Map<string, ErrorClassCount>();
  for (const r of totals(store, M.errors, q)) {
    const k = `${r.variant}\u0001${r.error_class}`;
    const e = errors.get(k);
    errors.set(k, { variant: r.variant, errorClass: r.error_class, count: (e?.count ?? 0) + r.v });
  }
  const disagreements = new Map<string, DisagreementCount>();
  for (const r of totals(store, M.shadowDisagreements, q)) {
    const d = {
      variant: r.variant,
      errorClass: r.error_class,
      errorType: r.error_type,
      shadowClass: r.shadow_class,
      shadowType: r.shadow_type,
    };
    const k = Object.values(d).join('\u0001');
    disagreements.set(k, { ...d, count: (disagreements.get(k)?.count ?? 0) + r.v });
  }

  const where = filterSql(q, '');
  const examples = (
    store.db
      .prepare(`SELECT * FROM shadow_examples WHERE ts >= ? AND ts < ?${where.sql} ORDER BY ts DESC LIMIT ?`)
      .all(q.from, q.to, ...where.args, MAX_EXAMPLES) as Array<Record<string, string | number>>
  ).map(
    (e): ShadowExample => ({
      at: e.ts as number,
      traceId: e.trace_id as string,
      spanId: e.span_id as string,
      callSpanId: e.parent_span_id as string,
      service: e.service as string,
      server: e.server as string,
      tool: e.tool as string,
      variant: e.variant as string,
      errorClass: e.error_class as string,
      errorType: e.error_type as string,
      shadowClass: e.shadow_class as string,
      shadowType: e.shadow_type as string,
    }),
  );

  return {
    from: q.from,
    to: q.to,
    variants: tally.result(cumulative),
    errors: [...errors.values()].filter((e) => e.count > 0).sort(byKey),
    disagreements: [...disagreements.values()].filter((d) => d.count > 0).sort(byKey),
    examples,
  };
}

/**
 * Per-bucket counts (only non-empty buckets are stored) as a cumulative histogram over the contract's bucket
 * bounds and +Inf, as Prometheus holds it, so that quantiles interpolate the same way.
 */
function cumulative(buckets: Map<number, number>): Array<{ le: number; count: number }> {
  if (buckets.size === 0) return [];
  const bounds = [
    ...new Set([...MCP_RESILIENCE_CALL_DURATION_BUCKETS, ...buckets.keys(), Number.POSITIVE_INFINITY]),
  ].sort((a, b) => a - b);
  let running = 0;
  return bounds.map((le) => {
    running += buckets.get(le) ?? 0;
    return { le, count: running };
  });
}
