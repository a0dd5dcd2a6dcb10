import { describe, expect, it, vi } from 'vitest';
import { AlertStore } from '@/lib/alerts/alert-store';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import type { MetricsSource } from '@/lib/data/metrics-source';
import { openDatabase } from '@/lib/store/database';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { tempDir } from './support/runtime';

/*
 * Alert marks of a chart come from the alert history of the chart's range: a zoomed past range keeps its marks
 * however many alerts fired after it.
 */

const MIN = 60_000;
const NOW = 1_800_000_000_000;
const { db } = openDatabase(':memory:');
const alertStore = new AlertStore(db, () => NOW);

const noTransitions = { transitionMarks: async () => [] } as unknown as MetricsSource;
let source: MetricsSource = noTransitions;
vi.mock('@/lib/runtime', () => ({
  getRuntime: () => ({ alertStore, source }),
}));

const { fetchAnnotations, MARK_SLICES } = await import('@/lib/data/fetchers');

const entry = (at: number, state: string, name = 'low efficiency') => ({
  at,
  key: `k-${at}`,
  source: 'rule' as const,
  name,
  labels: {},
  state,
  value: null,
  summary: '',
});

describe('fetchAnnotations', () => {
  it("marks a past range's alerts although hundreds of newer rows follow", async () => {
    const past = { from: NOW - 24 * 60 * MIN, to: NOW - 23 * 60 * MIN, filters: {} };
    alertStore.addHistory(entry(past.from + 10 * MIN, 'firing', 'old'));
    alertStore.addHistory(entry(past.from + 20 * MIN, 'resolved', 'old'));
    alertStore.addHistory(entry(past.from + 15 * MIN, 'pending', 'old'));
    for (let i = 0; i < 500; i++) alertStore.addHistory(entry(NOW - 60 * MIN + i * 1000, 'firing'));
    const marks = await fetchAnnotations(past);
    expect(marks).toEqual([
      { t: past.from + 10 * MIN, kind: 'alert', state: 'firing', label: 'old firing', count: 1 },
      { t: past.from + 20 * MIN, kind: 'alert', state: 'resolved', label: 'old resolved', count: 1 },
    ]);
    // the recent range marks all 500 alerts, aggregated per slice of the range
    const recent = await fetchAnnotations({ from: NOW - 60 * MIN, to: NOW, filters: {} });
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThanOrEqual(MARK_SLICES);
    expect(recent.reduce((s, m) => s + m.count, 0)).toBe(500);
    expect(recent[0]!.t).toBe(NOW - 60 * MIN);
    expect(recent.every((m) => m.t >= NOW - 60 * MIN && m.t < NOW)).toBe(true);
  });

  it('reads the history of a range newest first, bounded and by state', () => {
    const from = NOW - 30 * 24 * 60 * MIN;
    const rows = alertStore.historyBetween(from, from + 2 * MIN, 10);
    expect(rows).toEqual([]);
    alertStore.addHistory(entry(from + 1000, 'pending'));
    alertStore.addHistory(entry(from + 2000, 'firing'));
    alertStore.addHistory(entry(from + 3000, 'resolved'));
    alertStore.addHistory(entry(from + 2 * MIN, 'firing'));
    expect(alertStore.historyBetween(from, from + 2 * MIN, 10).map((h) => h.at)).toEqual([
      from + 3000,
      from + 2000,
      from + 1000,
    ]);
    expect(alertStore.historyBetween(from, from + 2 * MIN, 1).map((h) => h.state)).toEqual(['resolved']);
    expect(
      alertStore.historyBetween(from, from + 2 * MIN, 10, ['firing', 'pending']).map((h) => h.state),
    ).toEqual(['firing', 'pending']);
  });
});

describe('transition marks', () => {
  it('marks every transition of the range, the earliest included, aggregated when dense', async () => {
    const store = new EmbeddedStore({
      dataDir: tempDir(),
      retentionMs: 7 * 86_400_000,
      maxCalls: 100,
      maxAttempts: 100,
      now: () => NOW,
    });
    source = new EmbeddedSource(store, { staleMs: 600_000 });
    try {
      const from = NOW - 60 * MIN;
      const insert = store.db.prepare(
        `INSERT INTO breaker_transitions (ts, service, instance, server, tool, from_state, to_state, reason)
         VALUES (?, 'agent', 'a', ?, '', ?, ?, 'test')`,
      );
      // an outage early in the hour, then a breaker flapping every 10 s for the last 50 minutes (300 changes)
      insert.run(from + 2 * MIN, 'tickets', 'closed', 'open');
      insert.run(from + 4 * MIN, 'tickets', 'open', 'closed');
      for (let i = 0; i < 300; i++)
        insert.run(
          from + 10 * MIN + i * 10_000,
          'flappy',
          i % 2 ? 'open' : 'closed',
          i % 2 ? 'closed' : 'open',
        );
      // (the alerts of the tests above are marked too)
      const marks = (await fetchAnnotations({ from, to: NOW, filters: {} })).filter(
        (m) => m.kind === 'transition',
      );
      expect(marks.slice(0, 2)).toEqual([
        { t: from + 2 * MIN, kind: 'transition', state: 'open', label: 'tickets → open', count: 1 },
        { t: from + 4 * MIN, kind: 'transition', state: 'closed', label: 'tickets → closed', count: 1 },
      ]);
      expect(marks.reduce((s, m) => s + m.count, 0)).toBe(302);
      expect(marks.length).toBeLessThanOrEqual(2 * MARK_SLICES);
      expect(marks.find((m) => m.count > 1)?.label).toMatch(/^\d+ transitions → (open|closed) \(flappy\)$/);
    } finally {
      source = noTransitions;
      store.close();
    }
  });
});
