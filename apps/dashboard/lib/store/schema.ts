import type Database from 'better-sqlite3';
import { attemptBucketSql } from './attempt-buckets';
import { splitDimsExtra } from './split-dims-extra';

/** One step of the schema: SQL, or a function for steps that rewrite data (run in the step's transaction). */
export type Migration = string | ((db: Database.Database) => void);

/**
 * The embedded store's schema, applied in order; `meta.schema_version` says how far a database is. Every table
 * and index is created here, and only here. The alert tables are written and pruned by `AlertStore` alone.
 */
export const MIGRATIONS: readonly Migration[] = [
  `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  -- Low-cardinality label sets of the pre-aggregated facts.
  CREATE TABLE dims (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL, server TEXT NOT NULL, method TEXT NOT NULL, tool TEXT NOT NULL,
    outcome TEXT NOT NULL, error_class TEXT NOT NULL, error_type TEXT NOT NULL, extra TEXT NOT NULL,
    UNIQUE (service, server, method, tool, outcome, error_class, error_type, extra)
  );

  -- Pre-aggregated deltas per time bucket, in three tiers (10 s, 1 min, 1 h): panels read these, never raw data.
  -- value = the sum of deltas (histograms: the sum of observed values); count = histogram observations.
  CREATE TABLE facts (
    tier INTEGER NOT NULL, metric INTEGER NOT NULL, bucket INTEGER NOT NULL, dim INTEGER NOT NULL,
    value REAL NOT NULL, count REAL NOT NULL,
    PRIMARY KEY (tier, metric, bucket, dim)
  ) WITHOUT ROWID;

  -- Last cumulative value per series (resource + scope + metric + attributes), for cumulative -> delta.
  CREATE TABLE cumulative_state (
    key TEXT PRIMARY KEY, start REAL NOT NULL, time REAL NOT NULL, value REAL NOT NULL,
    sum REAL NOT NULL, buckets TEXT, seen INTEGER NOT NULL
  ) WITHOUT ROWID;

  -- Current breaker state per agent instance.
  CREATE TABLE breakers (
    service TEXT NOT NULL, instance TEXT NOT NULL, server TEXT NOT NULL, tool TEXT NOT NULL,
    state TEXT NOT NULL, since INTEGER NOT NULL, as_of REAL NOT NULL, updated INTEGER NOT NULL,
    PRIMARY KEY (service, instance, server, tool)
  );

  CREATE TABLE breaker_transitions (
    id INTEGER PRIMARY KEY, ts INTEGER NOT NULL,
    service TEXT NOT NULL, instance TEXT NOT NULL, server TEXT NOT NULL, tool TEXT NOT NULL,
    from_state TEXT NOT NULL, to_state TEXT NOT NULL, reason TEXT NOT NULL
  );
  CREATE INDEX breaker_transitions_ts ON breaker_transitions (ts);
  CREATE INDEX breaker_transitions_key ON breaker_transitions (server, tool, ts);

  -- Failed, retried or rejected calls (call spans) and their attempts (attempt spans), capped, for drill-down.
  CREATE TABLE calls (
    id INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, span_id TEXT NOT NULL,
    service TEXT NOT NULL, instance TEXT NOT NULL, server TEXT NOT NULL, method TEXT NOT NULL, tool TEXT NOT NULL,
    operation TEXT NOT NULL, start_ms REAL NOT NULL, duration_ms REAL NOT NULL, outcome TEXT NOT NULL,
    attempts INTEGER NOT NULL, error_class TEXT NOT NULL, error_type TEXT NOT NULL,
    wasted_retries INTEGER NOT NULL, wasted_time_ms REAL NOT NULL, message TEXT NOT NULL
  );
  CREATE INDEX calls_start ON calls (start_ms);
  CREATE UNIQUE INDEX calls_span ON calls (span_id, trace_id);

  CREATE TABLE attempts (
    id INTEGER PRIMARY KEY, trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_span_id TEXT NOT NULL,
    name TEXT NOT NULL, attempt INTEGER NOT NULL, start_ms REAL NOT NULL, duration_ms REAL NOT NULL, ok INTEGER NOT NULL,
    error_class TEXT NOT NULL, error_type TEXT NOT NULL, decision TEXT NOT NULL, delay_ms REAL NOT NULL,
    give_up_reason TEXT NOT NULL, execution TEXT NOT NULL, source TEXT NOT NULL, message TEXT NOT NULL
  );
  CREATE INDEX attempts_parent ON attempts (parent_span_id);
  CREATE INDEX attempts_start ON attempts (start_ms);
  CREATE UNIQUE INDEX attempts_span ON attempts (span_id, trace_id);

  -- Alerting: rules (JSON), notification targets, alert instances (current state) and their history.
  CREATE TABLE alert_rules (id TEXT PRIMARY KEY, json TEXT NOT NULL, updated INTEGER NOT NULL);
  CREATE TABLE alert_targets (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, url TEXT NOT NULL, kind TEXT NOT NULL,
    enabled INTEGER NOT NULL, created INTEGER NOT NULL
  );
  CREATE TABLE alert_instances (
    key TEXT PRIMARY KEY, source TEXT NOT NULL, rule_id TEXT NOT NULL, name TEXT NOT NULL, labels TEXT NOT NULL,
    state TEXT NOT NULL, active_at INTEGER, fired_at INTEGER, last_true_at INTEGER, resolved_at INTEGER,
    value REAL, summary TEXT NOT NULL, updated INTEGER NOT NULL
  );
  CREATE TABLE alert_history (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, source TEXT NOT NULL, name TEXT NOT NULL,
    labels TEXT NOT NULL, state TEXT NOT NULL, value REAL, summary TEXT NOT NULL
  );
  CREATE INDEX alert_history_at ON alert_history (at);
  CREATE TABLE alert_deliveries (
    id INTEGER PRIMARY KEY, at INTEGER NOT NULL, history_id INTEGER NOT NULL, target TEXT NOT NULL,
    ok INTEGER NOT NULL, attempts INTEGER NOT NULL, detail TEXT NOT NULL
  );
  CREATE INDEX alert_deliveries_at ON alert_deliveries (at);
  `,
  `
  -- Agent instances (resource service.name + service.instance.id) seen at ingest, metrics or traces: the
  -- facts carry no instance, so this answers "which processes sent data in a window" (GET /api/v1/instances).
  CREATE TABLE instances (
    service TEXT NOT NULL, instance TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
    PRIMARY KEY (service, instance)
  ) WITHOUT ROWID;
  CREATE INDEX instances_last_seen ON instances (last_seen);
  -- What a database created before this table already knows.
  INSERT OR IGNORE INTO instances (service, instance, first_seen, last_seen)
    SELECT service, instance, MIN(since), MAX(updated) FROM breakers GROUP BY service, instance;
  INSERT OR IGNORE INTO instances (service, instance, first_seen, last_seen)
    SELECT service, instance, CAST(MIN(start_ms) AS INTEGER), CAST(MAX(start_ms) AS INTEGER) FROM calls
    GROUP BY service, instance;
  `,
  `
  -- The experiment variant of a stored call ('' outside an experiment), so the Calls page filters by it too.
  ALTER TABLE calls ADD COLUMN variant TEXT NOT NULL DEFAULT '';
  `,
  (db) => {
    // real columns for the variant, the bucket bounds and the shadow's class/type (`split-dims-extra.ts`)
    splitDimsExtra(db);
    // created outside the migrations before (IF NOT EXISTS: a database of schema 3 may have them)
    db.exec(`
      -- Failed attempts the shadow classifier disagreed on (experiments), capped, linking to the Calls page.
      CREATE TABLE IF NOT EXISTS shadow_examples (
        id INTEGER PRIMARY KEY, ts REAL NOT NULL, trace_id TEXT NOT NULL, span_id TEXT NOT NULL,
        parent_span_id TEXT NOT NULL, service TEXT NOT NULL, server TEXT NOT NULL, tool TEXT NOT NULL,
        variant TEXT NOT NULL, error_class TEXT NOT NULL, error_type TEXT NOT NULL,
        shadow_class TEXT NOT NULL, shadow_type TEXT NOT NULL
      );
      CREATE UNIQUE INDEX IF NOT EXISTS shadow_examples_span ON shadow_examples (span_id, trace_id);
      CREATE INDEX IF NOT EXISTS shadow_examples_ts ON shadow_examples (ts);
      -- The Breakers page's read paths: a segment by state in name order; a breaker's other instances.
      CREATE INDEX IF NOT EXISTS breakers_by_state ON breakers (state, server, tool, updated);
      CREATE INDEX IF NOT EXISTS breakers_by_key ON breakers (server, tool, state, updated);
    `);
  },
  `
  -- Time-local keys for the span tables (\`attempt-buckets.ts\`): an index that starts with a random id sends each
  -- insert to a random page. Calls: one index, by start, that also keeps a re-sent span out (same start, same ids).
  -- Attempts: one index, by the start's 10-second bucket, then the call's span and trace ids (the Calls page's
  -- join), that also keeps a re-sent span out and serves retention by time.
  DROP INDEX calls_start;
  DROP INDEX calls_span;
  CREATE UNIQUE INDEX calls_start ON calls (start_ms, span_id, trace_id);
  DROP INDEX attempts_parent;
  DROP INDEX attempts_start;
  DROP INDEX attempts_span;
  CREATE UNIQUE INDEX attempts_call ON attempts (${attemptBucketSql()}, parent_span_id, trace_id, span_id);
  `,
  `
  -- Each instance's newest metrics export: its point time and the interval its counts cover, so a still-filling
  -- bucket's rate divides by the time its data covers (\`covered-time.ts\`), not by the time since the bucket began.
  ALTER TABLE instances ADD COLUMN export_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE instances ADD COLUMN export_ms INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- How many exports in a row kept an instance's interval (within 10% or 1 s): a steady cadence is the data's
  -- resolution, and charts use no finer bucket (\`data-interval.ts\`); one gap between two flushes is not one.
  ALTER TABLE instances ADD COLUMN export_steady INTEGER NOT NULL DEFAULT 0;
  `,
  `
  -- For an instance's newest export without an interval (only new cumulative series: its first): when its calls
  -- began (the series' earliest start), so a still-filling bucket that holds all of them reads its rate so far.
  ALTER TABLE instances ADD COLUMN export_from INTEGER NOT NULL DEFAULT 0;
  `,
];
