import { describe, expect, it } from 'vitest';
import { dataInterval } from '@/lib/data/data-interval';
import { exportsFromSamples } from '@/lib/data/exports-from-samples';
import { dataStep, planBuckets } from '@/lib/data/time-buckets';
import { planSeries, type Tier } from '@/lib/store/tiers';

/*
 * Issue #22: a chart bucket finer than the data's export interval holds no export, then several (0, 0, then 3x
 * with 30 s exports in 10 s buckets). The step is widened to the interval, measured from the data.
 */

const T = 1_800_000_000_000;
const S = 15_000;

/**
 * The sum of one instance's counters as a range query samples it every `S` (the collector's prometheus
 * exporter serves the value its last export pushed, stamped by the scrape): exports every `every` ms at
 * `phase`, each adding `per` (0 while `idle(t)`), sampled until `until`.
 */
function sampled(every: number, phase: number, until: number, idle: (t: number) => boolean = () => false) {
  const points: Array<[number, number]> = [];
  let value = 0;
  let next = T + phase;
  for (let g = T; g <= until; g += S) {
    // the exports the collector received before the scrape that this grid point reads
    while (next <= g) {
      if (!idle(next)) value += 10;
      next += every;
    }
    points.push([g, value]);
  }
  return points;
}

describe('exportsFromSamples (the collector exporter, scraped every 15 s)', () => {
  it('takes the spacing of the changes as the interval, and dates the newest export within its scrape', () => {
    for (const [every, phase] of [
      [30_000, 4_000],
      [60_000, 41_000],
      [120_000, 7_000],
    ] as const) {
      const until = T + 10 * 60_000;
      const e = exportsFromSamples(sampled(every, phase, until), S)!;
      expect(e.exportMs, `every ${every}`).toBe(every);
      // the newest export before `until`, first seen at the grid point after it, dated half a grid before
      const newest = T + phase + Math.floor((until - T - phase) / every) * every;
      expect(e.exportAt - newest, `every ${every}`).toBeGreaterThanOrEqual(-S / 2);
      expect(e.exportAt - newest, `every ${every}`).toBeLessThanOrEqual(S / 2);
    }
  });

  it('dates an export seen at a grid point past "now" within the scrape up to now', () => {
    // a change first seen at the grid point after `until` was scraped in (g - 15 s, until]
    const points = sampled(60_000, 41_000, T + 585_000);
    const g = points.at(-1)![0];
    expect(points.at(-1)![1]).not.toBe(points.at(-2)![1]);
    const until = g - 9_000;
    expect(exportsFromSamples(points, S, until)!.exportAt).toBe((g - S + until) / 2);
    expect(exportsFromSamples(points, S)!.exportAt).toBe(g - S / 2);
  });

  it('carries the newest export forward while the instance is idle (unchanged values are exports too)', () => {
    const until = T + 10 * 60_000;
    const idle = (t: number) => t > T + 6 * 60_000;
    const e = exportsFromSamples(sampled(60_000, 41_000, until, idle), S)!;
    expect(e.exportMs).toBe(60_000);
    expect(until - e.exportAt).toBeLessThan(60_000 + S);
  });

  it('needs a spacing seen twice: two changes, or a pull exporter, tell no export interval', () => {
    const two: Array<[number, number]> = [
      [T, 0],
      [T + S, 1],
      [T + 2 * S, 1],
      [T + 5 * S, 2],
    ];
    expect(exportsFromSamples(two, S)).toBeUndefined();
    // a pull exporter changes at every scrape: its interval is the scrape's (no wider step than the grid's)
    const pull = Array.from({ length: 20 }, (_, i) => [T + i * S, i] as [number, number]);
    expect(exportsFromSamples(pull, S)?.exportMs).toBe(S);
  });

  it('keeps the interval through an export that lands on a scrape (15 s then 45 s)', () => {
    const points = sampled(30_000, 4_000, T + 10 * 60_000);
    // one export late past a scrape: one spacing of 45 s, then one of 15 s
    const k = points.findIndex(([t]) => t > T + 4 * 60_000);
    const v = points[k]![1];
    points[k]![1] = points[k - 1]![1];
    points[k + 1]![1] = Math.max(points[k + 1]![1], v);
    expect(exportsFromSamples(points, S)?.exportMs).toBe(30_000);
  });
});

describe('dataStep, dataInterval and the plans', () => {
  it('widens to the nice step that holds one export, at most 10 minutes', () => {
    expect(dataStep(undefined)).toBe(0);
    expect(dataStep(5_000)).toBe(10_000);
    expect(dataStep(29_980)).toBe(30_000);
    expect(dataStep(30_000)).toBe(30_000);
    expect(dataStep(60_000)).toBe(60_000);
    expect(dataStep(90_000)).toBe(120_000);
    expect(dataStep(3_600_000)).toBe(600_000);
  });

  it('reads the longest steady interval of the instances; one gap is no cadence', () => {
    const e = (exportMs: number, steady?: boolean) => ({ service: 's', exportAt: T, exportMs, steady });
    expect(dataInterval([e(10_000, true), e(30_000, true), e(60_000, false)])).toBe(30_000);
    expect(dataInterval([e(60_000, false), e(45_000)])).toBeUndefined();
    expect(dataInterval(undefined)).toBeUndefined();
  });

  it('gives both backends the same widened grid', () => {
    const tiers: Tier[] = [
      { id: 0, res: 10_000, keepMs: 6 * 3_600_000 },
      { id: 1, res: 60_000, keepMs: 2 * 86_400_000 },
    ] as Tier[];
    for (const span of [15 * 60_000, 3_600_000, 6 * 3_600_000]) {
      for (const widen of [0, 30_000, 60_000, 120_000, 300_000]) {
        const e = planSeries(T - span, T, T, tiers, 200, widen);
        const p = planBuckets(T - span, T, 10_000, 200, widen);
        expect({ step: p.step, origin: p.origin, count: p.count }, `${span} ${widen}`).toEqual({
          step: e.step,
          origin: e.origin,
          count: e.count,
        });
        expect(e.step).toBeGreaterThanOrEqual(widen);
      }
    }
  });
});
