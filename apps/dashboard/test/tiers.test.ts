import { describe, expect, it } from 'vitest';
import { makeTiers, planRange, planSeries } from '@/lib/store/tiers';

const H = 3_600_000;
const D = 24 * H;
const tiers = makeTiers(7 * D);
const now = Date.UTC(2026, 10, 29, 12, 0, 0);

describe('planRange', () => {
  it('reads whole hours from the hour tier and the edges from finer tiers', () => {
    const from = now - 3 * H - 25 * 60_000 - 15_000;
    const pieces = planRange(from, now + 5_000, now, tiers);
    expect(pieces.map((p) => p.tier)).toEqual([0, 1, 2, 3, 0]);
    expect(pieces[0]!.from).toBe(Math.floor(from / 10_000) * 10_000);
    expect(pieces.at(-1)!.to).toBeGreaterThan(now);
    for (let i = 1; i < pieces.length; i++) expect(pieces[i]!.from).toBe(pieces[i - 1]!.to);
  });

  it('uses the finest tier still kept at an old edge', () => {
    const pieces = planRange(now - 2 * D - 90_000, now, now, tiers);
    expect(pieces[0]!.tier).toBe(2);
    expect(pieces[0]!.from % 600_000).toBe(0);
  });

  it('returns nothing for an empty range', () => {
    expect(planRange(now, now, now, tiers)).toEqual([]);
  });
});

describe('planSeries', () => {
  it('down-samples to at most ~200 points from the coarsest fitting tier', () => {
    expect(planSeries(now - H, now, now, tiers)).toMatchObject({ tier: 0, step: 30_000 });
    expect(planSeries(now - 6 * H, now, now, tiers)).toMatchObject({ tier: 1, step: 120_000 });
    expect(planSeries(now - 24 * H, now, now, tiers)).toMatchObject({ tier: 2, step: 600_000 });
    const week = planSeries(now - 7 * D, now, now, tiers);
    expect(week).toMatchObject({ tier: 3, step: H });
    expect(week.count).toBeLessThanOrEqual(200);
  });
});
