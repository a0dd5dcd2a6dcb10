import { ATTR_MCP_RESILIENCE_OUTCOME, METRIC_MCP_RESILIENCE_CALLS } from '@mcp-resilience/middleware/semconv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { PieceCache } from '@/lib/data/piece-cache';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { sumRequest } from './support/otlp-json';
import { tempDir } from './support/runtime';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('PieceCache', () => {
  it('reads a key once, drops what a write reaches (late data included), keeps the rest', () => {
    const cache = new PieceCache();
    let reads = 0;
    const read = (v: number) => () => {
      reads++;
      return [v];
    };
    expect(cache.rows('old', 1_000, read(1))).toEqual([1]);
    expect(cache.rows('new', 5_000, read(2))).toEqual([2]);
    expect(cache.rows('old', 1_000, read(9))).toEqual([1]);
    expect(reads).toBe(2);
    cache.changedFrom(1_000); // buckets from 1,000 on: 'new' (before 5,000) can change, 'old' (before 1,000) cannot
    expect(cache.rows('old', 1_000, read(9))).toEqual([1]);
    expect(cache.rows('new', 5_000, read(3))).toEqual([3]);
    cache.changedFrom(999); // a late point in 'old''s last bucket
    expect(cache.rows('old', 1_000, read(4))).toEqual([4]);
    cache.changedFrom(Number.NEGATIVE_INFINITY); // retention deleted facts
    expect(cache.size).toBe(0);
  });

  it('is bounded: least recently used first, large results not kept', () => {
    const cache = new PieceCache(2, 3);
    cache.rows('a', 1, () => [1]);
    cache.rows('b', 1, () => [2]);
    cache.rows('a', 1, () => [9]); // a used again: b is the oldest
    cache.rows('c', 1, () => [3]);
    expect(cache.rows('a', 1, () => [9])).toEqual([1]);
    expect(cache.rows('b', 1, () => [8])).toEqual([8]);
    cache.rows('big', 1, () => [1, 2, 3, 4]);
    expect(cache.rows('big', 1, () => [5])).toEqual([5]);
  });
});

const open: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  vi.restoreAllMocks();
});

/** Counts the reads the kept pieces could not answer (every `read` a `PieceCache` had to call). */
function countReads(): { readonly n: number } {
  const count = { n: 0 };
  const rows = PieceCache.prototype.rows;
  vi.spyOn(PieceCache.prototype, 'rows').mockImplementation(function <R>(
    this: PieceCache,
    key: string,
    to: number,
    read: () => R[],
  ) {
    return rows.call(this, key, to, () => {
      count.n++;
      return read();
    });
  });
  return count;
}

/*
 * The clock is injected (store, source and ingest read it): the pieces a range is split into depend on where
 * now falls in its hour, so each layout is tested on purpose, not by the time of day the test ran. The data's
 * times are relative to `now`; `advance` moves the clock after the first reads (across the hour: the kept
 * pieces no longer match the new plan).
 */
const CLOCKS = [
  ['mid-hour', Date.UTC(2026, 11, 3, 12, 25, 7, 300), 0],
  ['on the hour', Date.UTC(2026, 11, 3, 13, 0, 0, 0), 0],
  [
    'a second before the hour, the clock crossing it before the new data',
    Date.UTC(2026, 11, 3, 12, 59, 59, 0),
    2_000,
  ],
  ['a second after the hour', Date.UTC(2026, 11, 3, 13, 0, 1, 0), 0],
] as const;

describe('the embedded source over kept aggregates', () => {
  it.each(CLOCKS)(
    'answers a 7-day overview from kept pieces, with the numbers of a fresh store after late and new data (%s)',
    async (_phase, now, advance) => {
      let clock = now;
      const dir = tempDir();
      const store = new EmbeddedStore({
        dataDir: dir,
        retentionMs: 8 * DAY,
        maxCalls: 100,
        maxAttempts: 100,
        now: () => clock,
      });
      open.push(store);
      const source = new EmbeddedSource(store, { staleMs: 600_000 });
      const sink = createIngestSink(store);
      const put = (timeMs: number, asInt: number, outcome: string) =>
        sink.metrics(
          decodeMetrics(
            Buffer.from(
              JSON.stringify(
                sumRequest(
                  METRIC_MCP_RESILIENCE_CALLS,
                  [{ timeMs, asInt, attributes: { [ATTR_MCP_RESILIENCE_OUTCOME]: outcome } }],
                  {
                    temporality: 1,
                  },
                ),
              ),
            ),
            'json',
          ),
        );
      const reads = countReads();
      for (let d = 6; d >= 1; d--) put(now - d * DAY, 10, 'success');
      const q = { from: now - 7 * DAY, to: now + 1000, filters: {} };
      const first = await source.headline(q);
      expect(first.calls.total).toBe(60);
      expect(reads.n).toBeGreaterThan(0);
      // unchanged data: answered from the kept pieces (not one read), the same numbers
      const before = reads.n;
      const again = await source.headline(q);
      expect(again.calls).toEqual(first.calls);
      expect(reads.n).toBe(before);
      clock += advance;
      // a late export into a complete hour of 3 days ago, a new one now: both show at once
      put(now - 3 * DAY + 60_000, 5, 'failure');
      put(now - 1000, 7, 'success');
      const after = await source.headline(q);
      expect(after.calls).toMatchObject({ total: 72, success: 67, failure: 5 });
      const series = await source.callSeries(q);
      expect(series.points.reduce((s, p) => s + p.success + p.failure, 0)).toBe(72);
      // the same numbers as a source that keeps nothing (a fresh one on the same file)
      const fresh = new EmbeddedSource(store, { staleMs: 600_000 });
      expect((await fresh.headline(q)).calls).toEqual(after.calls);
      // retention drops every kept piece: read again, the same numbers
      const kept = reads.n;
      store.enforceRetention();
      expect((await source.headline(q)).calls).toEqual(after.calls);
      expect(reads.n).toBeGreaterThan(kept);
    },
  );
});
