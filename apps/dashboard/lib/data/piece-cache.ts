/**
 * Results of the embedded store's aggregate queries over a time range of facts, kept until a write could change
 * them: an entry over buckets before `to` is dropped when facts at or after a bucket before `to` are written (late
 * data included), and all are dropped when retention deletes facts. So a 7-day overview re-reads only the
 * buckets still filling, never the 167 complete hours again, and its numbers are the same as uncached ones.
 * Bounded: `maxEntries` (least recently used dropped first), and results over `maxRows` are not kept.
 */
export class PieceCache {
  private readonly entries = new Map<string, { readonly to: number; readonly rows: readonly unknown[] }>();

  constructor(
    private readonly maxEntries = 512,
    private readonly maxRows = 5_000,
  ) {}

  /** The rows of `key` (a query and its arguments over buckets before `to`), read by `read` when not kept. */
  rows<R>(key: string, to: number, read: () => R[]): readonly R[] {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.rows as readonly R[];
    }
    const rows = read();
    if (rows.length <= this.maxRows) {
      this.entries.set(key, { to, rows });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return rows;
  }

  /** Facts were written at buckets from `from` on (`-Infinity`: facts deleted): drops what they can change. */
  changedFrom(from: number): void {
    if (from === Number.NEGATIVE_INFINITY) {
      this.entries.clear();
      return;
    }
    for (const [key, e] of this.entries) if (e.to > from) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
