import { describe, expect, it } from 'vitest';
import { trailingEfficiency } from '@/lib/data/trailing-efficiency';

const p = (t: number, successful: number, total: number) => ({ t, successful, total });

describe('trailingEfficiency', () => {
  it('never plots a tiny bucket on its own: it reaches back until 20 retries, within 5 minutes', () => {
    const step = 60_000;
    const points = [p(0, 10, 10), p(1, 0, 2), p(2, 9, 10), p(3, 20, 25), p(4, 0, 0)];
    const out = trailingEfficiency(points, step);
    expect(out[0]!.efficiency).toBeNull(); // 10 retries: insufficient
    expect(out[1]!.efficiency).toBeNull(); // 12
    expect(out[2]!.efficiency).toBeCloseTo(19 / 22, 12); // buckets 0-2 (not 0% from bucket 1 alone)
    expect(out[3]!.efficiency).toBe(20 / 25); // its own bucket suffices
    expect(out[4]!.efficiency).toBeNull(); // no retry in it: a gap, not bucket 3's value repeated
  });
  it('stops the line where the retries stop: no point repeated over the 5 minutes after', () => {
    const step = 10_000;
    const busy = Array.from({ length: 6 }, (_, i) => p(i * step, 18, 20));
    const idle = Array.from({ length: 30 }, (_, i) => p((i + 6) * step, 0, 0));
    const out = trailingEfficiency([...busy, ...idle], step);
    expect(out.slice(0, 6).every((o) => o.efficiency === 0.9)).toBe(true);
    expect(out.slice(6).map((o) => o.efficiency)).toEqual(idle.map(() => null));
  });
  it('does not reach further back than 5 minutes', () => {
    const out = trailingEfficiency(
      [p(0, 20, 20), ...Array.from({ length: 5 }, (_, i) => p(i + 1, 0, 1))],
      60_000,
    );
    expect(out[5]!.efficiency).toBeNull(); // buckets 1-5: 5 retries
    expect(out[4]!.efficiency).toBe(20 / 24);
  });
});
