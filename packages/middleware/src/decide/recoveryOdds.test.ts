import { describe, expect, it } from 'vitest';
import { PRIOR_WEIGHT, recoveryOdds } from './recoveryOdds.js';

describe('recoveryOdds', () => {
  it('without history: w / (a + w), a long outage being likely to last longer', () => {
    const odds = (outageAgeMs: number, withinMs: number) =>
      recoveryOdds({ outageAgeMs, withinMs, pastOutagesMs: [] });
    expect(odds(0, 10_000)).toBe(1);
    expect(odds(10_000, 10_000)).toBe(0.5);
    expect(odds(30_000, 10_000)).toBe(0.25);
    expect(odds(600_000, 60_000)).toBeCloseTo(1 / 11, 12);
    expect(odds(5_000, 0)).toBe(0);
    expect(odds(-5, 100)).toBe(1);
  });

  it("with history: the share of the past outages longer than this one's age that ended in time, blended with the prior", () => {
    // three past outages outlasted 2 s; two of them (3 s, 4 s) ended within 2 s more, the 60 s one did not
    const pastOutagesMs = [200, 500, 3_000, 4_000, 60_000];
    const prior = 2_000 / (2_000 + 2_000);
    expect(recoveryOdds({ outageAgeMs: 2_000, withinMs: 2_000, pastOutagesMs })).toBeCloseTo(
      (2 + PRIOR_WEIGHT * prior) / (3 + PRIOR_WEIGHT),
      12,
    );
  });

  it('learns that this endpoint has blips: a 1 s outage of one that always recovers in 2 s is worth waiting for', () => {
    const pastOutagesMs = Array(10).fill(2_000);
    expect(recoveryOdds({ outageAgeMs: 1_000, withinMs: 1_500, pastOutagesMs })).toBeCloseTo(
      (10 + 2 * (1_500 / 2_500)) / 12,
      12,
    );
    // past every blip it knows, only the prior is left
    expect(recoveryOdds({ outageAgeMs: 5_000, withinMs: 1_500, pastOutagesMs })).toBeCloseTo(
      1_500 / 6_500,
      12,
    );
  });

  it('learns that this endpoint has long outages: its young outage is not a blip', () => {
    const pastOutagesMs = Array(8).fill(120_000);
    expect(recoveryOdds({ outageAgeMs: 1_000, withinMs: 30_000, pastOutagesMs })).toBeCloseTo(
      (0 + 2 * (30_000 / 31_000)) / 10,
      12,
    );
  });
});
