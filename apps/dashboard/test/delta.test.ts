import { describe, expect, it } from 'vitest';
import { cumulativeToDelta, type SeriesState } from '@/lib/ingest/delta';

const p = (
  startMs: number,
  timeMs: number,
  value: number,
  extra: { sum?: number; buckets?: number[] } = {},
) => ({
  startMs,
  timeMs,
  value,
  ...extra,
});

function run(points: ReturnType<typeof p>[], baselineBefore = 0) {
  let state: SeriesState | undefined;
  const out: Array<number | undefined> = [];
  for (const point of points) {
    const r = cumulativeToDelta(state, point, baselineBefore);
    out.push(r.delta?.value);
    if (r.next) state = r.next;
  }
  return out;
}

describe('cumulativeToDelta', () => {
  it('never yields a negative histogram sum: a sum that went down is a reset', () => {
    const first = cumulativeToDelta(undefined, p(100, 200, 2, { sum: 5, buckets: [1, 1] }), 50);
    const r = cumulativeToDelta(first.next, p(100, 300, 3, { sum: 1, buckets: [2, 1] }), 50);
    expect(r.reason).toBe('reset');
    expect(r.delta).toEqual({ value: 3, sum: 1, buckets: [2, 1] });
  });

  it('counts the first point in full when its sequence started after the store was created', () => {
    expect(run([p(100, 200, 5)], 50)).toEqual([5]);
  });

  it('takes the first point as a baseline when its sequence predates the store', () => {
    expect(run([p(10, 200, 500), p(10, 300, 507)], 50)).toEqual([undefined, 7]);
  });

  it('turns increases into deltas', () => {
    expect(run([p(100, 200, 5), p(100, 300, 5), p(100, 400, 12)])).toEqual([5, 0, 7]);
  });

  it('detects a restarted agent by its new start time: no negative, no doubled counts', () => {
    expect(run([p(100, 200, 40), p(100, 300, 50), p(1000, 1100, 3), p(1000, 1200, 8)])).toEqual([
      40, 10, 3, 5,
    ]);
  });

  it('detects a counter reset without a new start time', () => {
    expect(run([p(100, 200, 40), p(100, 300, 2)])).toEqual([40, 2]);
  });

  it('ignores duplicates and out-of-order points (an exporter retry)', () => {
    expect(run([p(100, 200, 5), p(100, 300, 9), p(100, 300, 9), p(100, 250, 7), p(100, 400, 10)])).toEqual([
      5,
      4,
      undefined,
      undefined,
      1,
    ]);
  });

  it('ignores a late point of an older sequence', () => {
    expect(run([p(1000, 1100, 3), p(100, 900, 70), p(1000, 1200, 4)])).toEqual([3, undefined, 1]);
  });

  it('converts histograms: count, sum and buckets', () => {
    let state: SeriesState | undefined;
    const a = cumulativeToDelta(state, p(100, 200, 3, { sum: 1.5, buckets: [1, 2, 0] }), 0);
    state = a.next;
    const b = cumulativeToDelta(state, p(100, 300, 5, { sum: 4, buckets: [1, 3, 1] }), 0);
    expect(b.delta).toEqual({ value: 2, sum: 2.5, buckets: [0, 1, 1] });
    const c = cumulativeToDelta(b.next, p(100, 400, 6, { sum: 4.1, buckets: [1, 3, 1, 1] }), 0);
    expect(c.reason).toBe('reset'); // bucket layout changed
  });

  it('adds up several instances: each series converts independently', () => {
    const a = run([p(100, 200, 10), p(100, 300, 15)]);
    const b = run([p(150, 210, 1), p(150, 310, 4)]);
    const total = [...a, ...b].reduce<number>((s, v) => s + (v ?? 0), 0);
    expect(total).toBe(15 + 4);
  });
});
