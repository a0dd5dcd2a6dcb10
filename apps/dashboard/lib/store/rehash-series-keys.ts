import { HASHED_PREFIX, rehashedKey } from '../ingest/series-key';
import type { Db } from './database';

/**
 * Moves `cumulative_state` rows of the older key format (the identifying text itself) to hashed keys, once, at
 * open: the series keep their state across the upgrade (neither re-counted nor lost). A key that cannot be
 * split unambiguously is dropped (its series starts again from a baseline). Returns the rows moved.
 */
export function rehashSeriesKeys(db: Db): number {
  const old = db
    .prepare<[string], string>('SELECT key FROM cumulative_state WHERE substr(key, 1, 2) <> ?')
    .pluck()
    .all(HASHED_PREFIX);
  if (old.length === 0) return 0;
  const move = db.prepare('UPDATE OR REPLACE cumulative_state SET key = ? WHERE key = ?');
  const drop = db.prepare('DELETE FROM cumulative_state WHERE key = ?');
  db.transaction(() => {
    for (const key of old) {
      const next = rehashedKey(key);
      if (next === undefined) drop.run(key);
      else move.run(next, key);
    }
  })();
  return old.length;
}
