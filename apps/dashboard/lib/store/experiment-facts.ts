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
import { M } from './metric-ids';

/*
 * What the embedded store keeps for experiments (canary variants and the shadow classifier), beside the facts:
 * - the variant of a fact goes in its dimension's `extra` column (`v=<variant>`), so every existing panel, which
 *   sums over `extra`, is unchanged; the shadow disagreements counter adds the shadow's class and type there;
 * - a variant's call-duration histogram also keeps its bucket counts (metric `M.callDurationBucket`, `le=` in
 *   `extra`), for its p95;
 * - failed attempts the shadow disagreed on are kept as examples (a capped table of their own), linking to the
 *   Calls page.
 */

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
const enc = (v: string) => encodeURIComponent(v);

/** The variant of a data point or span, '' when none. */
export const variantOf = (attrs: Attrs): string => text(attrs[ATTR_MCP_RESILIENCE_VARIANT]);

/** The `extra` column of a fact's dimension for a non-transition metric: '' without experiment attributes. */
export function experimentExtra(metricId: number, attrs: Attrs): string {
  const variant = variantOf(attrs);
  if (metricId === M.shadowDisagreements) {
    return `v=${enc(variant)}|sc=${enc(text(attrs[ATTR_MCP_RESILIENCE_SHADOW_CLASS]))}|st=${enc(text(attrs[ATTR_MCP_RESILIENCE_SHADOW_TYPE]))}`;
  }
  return variant === '' ? '' : `v=${enc(variant)}`;
}

/** The `extra` of one bucket of a variant's call-duration histogram. */
export const bucketExtra = (variant: string, le: number | undefined): string =>
  `v=${enc(variant)}|le=${le === undefined ? '+Inf' : String(le)}`;

/** Parses an `extra` written above: `{ v, sc, st, le }` (absent keys are ''). */
export function parseExtra(extra: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (extra === '' || !extra.startsWith('v=')) return out;
  for (const part of extra.split('|')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i)] = decodeURIComponent(part.slice(i + 1));
  }
  return out;
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

/** Keeps a failed attempt span as an example when the shadow disagreed on it. */
export function storeShadowExample(db: Db, service: string, span: Span): void {
  const shadow = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION)?.attributes;
  if (shadow === undefined) return;
  if (shadow[ATTR_MCP_RESILIENCE_SHADOW_AGREES] !== false) return;
  const c = span.events.find((e) => e.name === EVENT_MCP_RESILIENCE_CLASSIFICATION)?.attributes ?? {};
  const a = span.attributes;
  db.prepare(
    `INSERT OR IGNORE INTO shadow_examples (ts, trace_id, span_id, parent_span_id, service, server, tool, variant,
       error_class, error_type, shadow_class, shadow_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    span.startMs,
    span.traceId,
    span.spanId,
    span.parentSpanId,
    service,
    text(a[ATTR_MCP_SERVER]),
    text(a[ATTR_GEN_AI_TOOL_NAME]),
    variantOf(a),
    text(c[ATTR_ERROR_CLASS] ?? a[ATTR_ERROR_CLASS]),
    text(c[ATTR_ERROR_TYPE] ?? a[ATTR_ERROR_TYPE]),
    text(shadow[ATTR_MCP_RESILIENCE_SHADOW_CLASS]),
    text(shadow[ATTR_MCP_RESILIENCE_SHADOW_TYPE]),
  );
}

/** Drops examples past retention and beyond the cap; returns how many. */
export function pruneShadowExamples(db: Db, cutoff: number): number {
  return db
    .prepare('DELETE FROM shadow_examples WHERE ts < ? OR id <= (SELECT MAX(id) FROM shadow_examples) - ?')
    .run(cutoff, MAX_SHADOW_EXAMPLES).changes;
}
