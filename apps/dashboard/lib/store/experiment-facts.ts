import {
  ATTR_ERROR_CLASS,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_RESILIENCE_SHADOW_AGREES,
  ATTR_MCP_RESILIENCE_SHADOW_CLASS,
  ATTR_MCP_RESILIENCE_SHADOW_TYPE,
  ATTR_MCP_RESILIENCE_VARIANT,
  ATTR_MCP_SERVER,
  EVENT_MCP_RESILIENCE_CLASSIFICATION,
  EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION,
} from '@mcp-resilience/middleware/semconv';
import type { Attrs, Span } from '../otlp/model';
import type { Db } from './database';

/*
 * What the embedded store keeps for experiments (canary variants and the shadow classifier), beside the facts,
 * in the encoding of the ingest restructuring (branch i15a), so both merge into one:
 * - the variant of a fact is its dimension's `extra` (every metric but the transitions, whose `extra` is
 *   `from>to`); every existing panel sums over `extra`, so it is unchanged;
 * - a variant's call-duration histogram keeps its non-empty bucket counts (metric `M.callDurationBucket`,
 *   `extra` = `lower~le`, then `\u0001variant`), for its p95;
 * - the shadow disagreements counter (`M.shadowDisagreements`) keeps the shadow's class and type in its
 *   dimension's `outcome` column (`class/type`; that counter has no outcome), the acting ones in `error_class` /
 *   `error_type`;
 * - failed attempts the shadow disagreed on are kept as examples (a capped table of their own), linking to the
 *   Calls page.
 */

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);

/** The variant of a data point or span, '' when none. */
export const variantOf = (attrs: Attrs): string => text(attrs[ATTR_MCP_RESILIENCE_VARIANT]);

/** The `outcome` column of a shadow disagreement's dimension: the shadow's `class/type`. */
export const shadowOutcome = (attrs: Attrs): string =>
  `${text(attrs[ATTR_MCP_RESILIENCE_SHADOW_CLASS])}/${text(attrs[ATTR_MCP_RESILIENCE_SHADOW_TYPE])}`;

/** Reads `shadowOutcome` back. */
export function parseShadowOutcome(outcome: string): { shadowClass: string; shadowType: string } {
  const i = outcome.indexOf('/');
  return i < 0
    ? { shadowClass: outcome, shadowType: '' }
    : { shadowClass: outcome.slice(0, i), shadowType: outcome.slice(i + 1) };
}

/** The `extra` of bucket `i` of a histogram point with these upper bounds. */
export function bucketExtra(bounds: readonly number[], i: number, variant: string): string {
  const lower = i === 0 ? '' : String(bounds[i - 1]);
  const le = `${lower}~${i < bounds.length ? String(bounds[i]) : '+Inf'}`;
  return variant ? `${le}\u0001${variant}` : le;
}

/** Reads `bucketExtra` back: the bucket's upper bound (`+Inf` allowed) and the variant ('' for none). */
export function parseBucketExtra(extra: string): { le: string; variant: string } {
  const [range = '', variant = ''] = extra.split('\u0001');
  return { le: range.slice(range.indexOf('~') + 1), variant };
}

/** Examples of disagreements kept at most (the oldest are dropped beyond, and past retention). */
export const MAX_SHADOW_EXAMPLES = 2000;

/** Creates the examples table when missing (idempotent: outside the numbered migrations, which are shared). */
export function ensureExperimentTables(db: Db): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS shadow_examples (
      id INTEGER PRIMARY KEY, ts REAL NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL,
      parent_span_id TEXT NOT NULL, service TEXT NOT NULL, server TEXT NOT NULL, tool TEXT NOT NULL,
      variant TEXT NOT NULL, error_class TEXT NOT NULL, error_type TEXT NOT NULL,
      shadow_class TEXT NOT NULL, shadow_type TEXT NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS shadow_examples_span ON shadow_examples (span_id, trace_id);
    CREATE INDEX IF NOT EXISTS shadow_examples_ts ON shadow_examples (ts);
  `);
}

/** A failed attempt the shadow classifier disagreed on, kept as an example. */
export interface ShadowExample {
  readonly ts: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly service: string;
  readonly server: string;
  readonly tool: string;
  readonly variant: string;
  readonly errorClass: string;
  readonly errorType: string;
  readonly shadowClass: string;
  readonly shadowType: string;
}

/** The example an attempt span makes when the shadow disagreed on it, else undefined. */
export function shadowExampleOf(service: string, span: Span): ShadowExample | undefined {
  const shadow = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION)?.attributes;
  if (shadow === undefined) return undefined;
  if (shadow[ATTR_MCP_RESILIENCE_SHADOW_AGREES] !== false) return undefined;
  const c = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes ?? {};
  const a = span.attributes;
  return {
    ts: span.startMs,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    service,
    server: text(a[ATTR_MCP_SERVER]),
    tool: text(a[ATTR_GEN_AI_TOOL_NAME]),
    variant: variantOf(a),
    errorClass: text(c[ATTR_ERROR_CLASS] ?? a[ATTR_ERROR_CLASS]),
    errorType: text(c[ATTR_ERROR_TYPE] ?? a[ATTR_ERROR_TYPE]),
    shadowClass: text(shadow[ATTR_MCP_RESILIENCE_SHADOW_CLASS]),
    shadowType: text(shadow[ATTR_MCP_RESILIENCE_SHADOW_TYPE]),
  };
}

/** Keeps shadow examples (duplicates by span ignored). */
export function storeShadowExamples(db: Db, examples: readonly ShadowExample[]): void {
  if (examples.length === 0) return;
  const insert = db.prepare(
    `INSERT OR IGNORE INTO shadow_examples (ts, trace_id, span_id, parent_span_id, service, server, tool, variant,
       error_class, error_type, shadow_class, shadow_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const e of examples) {
    insert.run(
      e.ts,
      e.traceId,
      e.spanId,
      e.parentSpanId,
      e.service,
      e.server,
      e.tool,
      e.variant,
      e.errorClass,
      e.errorType,
      e.shadowClass,
      e.shadowType,
    );
  }
}

/** Drops examples past retention and beyond the cap; returns how many. */
export function pruneShadowExamples(db: Db, cutoff: number): number {
  return db
    .prepare('DELETE FROM shadow_examples WHERE ts < ? OR id <= (SELECT MAX(id) FROM shadow_examples) - ?')
    .run(cutoff, MAX_SHADOW_EXAMPLES).changes;
}
