import { describe, expect, it, vi } from 'vitest';
import { AlertStore } from '@/lib/alerts/alert-store';
import { openDatabase } from '@/lib/store/database';

/*
 * Alert marks of a chart come from the alert history of the chart's range: a zoomed past range keeps its marks
 * however many alerts fired after it.
 */

const MIN = 60_000;
const NOW = 1_800_000_000_000;
const { db } = openDatabase(':memory:');
const alertStore = new AlertStore(db, () => NOW);

vi.mock('@/lib/runtime', () => ({
  getRuntime: () => ({
    alertStore,
    source: { transitions: async () => [] },
  }),
}));

const { fetchAnnotations } = await import('@/lib/data/fetchers');

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
      { t: past.from + 10 * MIN, kind: 'alert', state: 'firing', label: 'old firing' },
      { t: past.from + 20 * MIN, kind: 'alert', state: 'resolved', label: 'old resolved' },
    ]);
    // the recent range still gets its marks, bounded
    const recent = await fetchAnnotations({ from: NOW - 60 * MIN, to: NOW, filters: {} });
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThanOrEqual(60);
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
