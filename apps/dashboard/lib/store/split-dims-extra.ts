import type Database from 'better-sqlite3';

/*
 * Migration 4's data step: the label sets of schema 3 packed experiment labels into `dims.extra` (the variant;
 * `lower~le\u0001variant` for call-duration buckets) and the shadow's `class/type` into `dims.outcome`. Each
 * label set is rewritten into the real columns, by what the facts that use it are: a set shared by facts of two
 * kinds is split, and its facts of the second kind moved (merged, never lost) to the new set. The metric ids are
 * those of schema 3, fixed here: a migration never changes with the code.
 */

const TRANSITIONS = 6;
const BUCKETS = 9;
const WAITING = 13;
const SHADOW = 14;

type Kind = 'plain' | 'bucket' | 'shadow' | 'kept';

const kindOf = (metric: number): Kind =>
  metric === BUCKETS
    ? 'bucket'
    : metric === SHADOW
      ? 'shadow'
      : metric === TRANSITIONS || metric === WAITING
        ? 'kept'
        : 'plain';

interface OldDim {
  id: number;
  service: string;
  server: string;
  method: string;
  tool: string;
  outcome: string;
  error_class: string;
  error_type: string;
  extra: string;
}

const NEW_COLUMNS = [
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

type NewDim = Record<(typeof NEW_COLUMNS)[number], string>;

/** The label set of schema 4 that an old one stands for, for facts of `kind`. */
function rewrite(d: OldDim, kind: Kind): NewDim {
  const base = { ...d, variant: '', bucket_lower: '', bucket_le: '', shadow_class: '', shadow_type: '' };
  if (kind === 'kept') return base;
  if (kind === 'bucket') {
    const [range = '', variant = ''] = d.extra.split('\u0001');
    const i = range.indexOf('~');
    return {
      ...base,
      variant,
      bucket_lower: range.slice(0, Math.max(0, i)),
      bucket_le: range.slice(i + 1),
      extra: '',
    };
  }
  if (kind === 'shadow') {
    const i = d.outcome.indexOf('/');
    const [shadowClass, shadowType] =
      i < 0 ? [d.outcome, ''] : [d.outcome.slice(0, i), d.outcome.slice(i + 1)];
    return {
      ...base,
      outcome: '',
      variant: d.extra,
      shadow_class: shadowClass,
      shadow_type: shadowType,
      extra: '',
    };
  }
  return { ...base, variant: d.extra, extra: '' };
}

export const DIMS_V4_SQL = `
  CREATE TABLE dims_v4 (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL, server TEXT NOT NULL, method TEXT NOT NULL, tool TEXT NOT NULL,
    outcome TEXT NOT NULL, error_class TEXT NOT NULL, error_type TEXT NOT NULL,
    -- mcp.resilience.variant ('' outside an experiment)
    variant TEXT NOT NULL,
    -- call-duration bucket facts: the bucket's bounds ('' lower for the first bucket, '+Inf' upper for the last)
    bucket_lower TEXT NOT NULL, bucket_le TEXT NOT NULL,
    -- shadow disagreement facts: the shadow classifier's class and type
    shadow_class TEXT NOT NULL, shadow_type TEXT NOT NULL,
    -- the rest of a label set without a column: transitions' from>to, the waiting level's service.instance.id
    extra TEXT NOT NULL,
    UNIQUE (service, server, method, tool, outcome, error_class, error_type, variant, bucket_lower, bucket_le,
            shadow_class, shadow_type, extra)
  )`;

/** Rebuilds `dims` with the real columns (schema 3 → 4), in the caller's transaction. */
export function splitDimsExtra(db: Database.Database): void {
  db.exec(DIMS_V4_SQL);
  const kinds = new Map<number, Set<Kind>>();
  for (const u of db
    .prepare<[], { dim: number; metric: number }>('SELECT DISTINCT dim, metric FROM facts')
    .iterate()) {
    const set = kinds.get(u.dim) ?? new Set<Kind>();
    set.add(kindOf(u.metric));
    kinds.set(u.dim, set);
  }
  const cols = NEW_COLUMNS.join(', ');
  const insert = db.prepare(
    `INSERT OR IGNORE INTO dims_v4 (id, ${cols}) VALUES (?, ${NEW_COLUMNS.map(() => '?').join(', ')})`,
  );
  const find = db.prepare<string[], { id: number }>(
    `SELECT id FROM dims_v4 WHERE ${NEW_COLUMNS.map((c) => `${c} = ?`).join(' AND ')}`,
  );
  const moveFacts = db.prepare(
    `INSERT INTO facts (tier, metric, bucket, dim, value, count)
       SELECT tier, metric, bucket, ?, value, count FROM facts WHERE dim = ? AND metric = ?
     ON CONFLICT (tier, metric, bucket, dim) DO UPDATE SET value = value + excluded.value, count = count + excluded.count`,
  );
  const dropFacts = db.prepare('DELETE FROM facts WHERE dim = ? AND metric = ?');
  const metricsOf = db.prepare<[number], number>('SELECT DISTINCT metric FROM facts WHERE dim = ?').pluck();
  const place = (d: OldDim, kind: Kind, id: number | null): void => {
    const values = NEW_COLUMNS.map((c) => rewrite(d, kind)[c]);
    insert.run(id, ...values);
    const placed = find.get(...values)!.id;
    if (placed === d.id) return;
    for (const metric of metricsOf.all(d.id)) {
      if (kindOf(metric) !== kind) continue;
      moveFacts.run(placed, d.id, metric);
      dropFacts.run(d.id, metric);
    }
  };
  const old = db.prepare<[], OldDim>('SELECT * FROM dims').all();
  const rest: Array<[OldDim, Kind]> = [];
  // every set keeps its id for its first kind; the kinds beyond get new ids after all the old ones
  for (const d of old) {
    const [first = 'plain', ...others] = [...(kinds.get(d.id) ?? [])];
    place(d, first, d.id);
    for (const k of others) rest.push([d, k]);
  }
  for (const [d, k] of rest) place(d, k, null);
  db.exec('DROP TABLE dims; ALTER TABLE dims_v4 RENAME TO dims;');
}
