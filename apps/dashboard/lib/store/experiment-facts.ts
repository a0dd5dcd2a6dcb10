import type { ShadowExampleRecord } from '../ingest/records';
import type { Db } from './database';

/*
 * What the embedded store keeps for experiments (canary variants and the shadow classifier), beside the facts:
 * each label set has real columns for the variant, a call-duration bucket's bounds and the shadow's class and
 * type (`schema.ts`, migration 4); failed attempts the shadow disagreed on are kept as examples (a capped table of
 * their own), linking to the Calls page.
 */

/** The variants in the store's label sets (retention deletes a label set with its last fact). */
export const VARIANTS_SQL = "SELECT DISTINCT variant AS v FROM dims WHERE variant <> ''";

/** Examples of disagreements kept at most (the oldest are dropped beyond, and past retention). */
export const MAX_SHADOW_EXAMPLES = 2000;

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
