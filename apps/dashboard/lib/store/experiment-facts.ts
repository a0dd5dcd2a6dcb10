import type { ShadowExampleRecord } from '../ingest/records';
import type { Db } from './database';

/*
 * What the embedded store keeps for experiments (canary variants and the shadow classifier), beside the facts,
 * in the encoding `lib/ingest` writes:
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

/**
 * The variants in the store: the `extra` of the label sets that are neither transitions (`from>to`) nor histogram
 * buckets (`lower~le`), of the metrics with an outcome or a class. From `dims` alone (retention deletes a label
 * set with its last fact): asking `facts` per label set scans the facts table once per bucket label set.
 */
export const VARIANTS_SQL =
  "SELECT DISTINCT extra AS v FROM dims WHERE extra <> '' AND extra NOT LIKE '%>%' AND extra NOT LIKE '%~%' AND (outcome <> '' OR error_class <> '')";

/** Reads a disagreement dimension's `outcome` (the shadow's `class/type`, `ingest/map-metrics.ts`) back. */
export function parseShadowOutcome(outcome: string): { shadowClass: string; shadowType: string } {
  const i = outcome.indexOf('/');
  return i < 0
    ? { shadowClass: outcome, shadowType: '' }
    : { shadowClass: outcome.slice(0, i), shadowType: outcome.slice(i + 1) };
}

/** Reads a call-duration bucket fact's `extra` (`lower~le`, then `\u0001variant`; `ingest/map-metrics.ts`) back: the bucket's upper bound (`+Inf` allowed) and the variant ('' for none). */
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

/** Keeps shadow examples (duplicates by span ignored). */
export function storeShadowExamples(db: Db, examples: readonly ShadowExampleRecord[]): void {
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
