import { describe, expect, it } from 'vitest';
import { oddsFallBelowMs } from './oddsFallBelowMs.js';
import { type RecoveryOddsInput, recoveryOdds } from './recoveryOdds.js';

/** The odds `t` ms later, judged again: the outage older by `t`, the time left shorter by `t`. */
const later = (input: RecoveryOddsInput, t: number) =>
  recoveryOdds({ ...input, outageAgeMs: input.outageAgeMs + t, withinMs: input.withinMs - t });

describe('oddsFallBelowMs', () => {
  it('without history: the odds (limit - age) / limit fall below `least` once the time left is `least` of the limit', () => {
    // a 30 s limit from the outage's start: odds 1 - age / 30 s, below 0.25 from 22.5 s
    expect(oddsFallBelowMs({ outageAgeMs: 0, withinMs: 30_000, pastOutagesMs: [] }, 0.25)).toBe(22_500);
    // 10 s into the outage with 30 s left: the limit is 40 s from the start; below 0.25 when 10 s are left
    expect(oddsFallBelowMs({ outageAgeMs: 10_000, withinMs: 30_000, pastOutagesMs: [] }, 0.25)).toBe(20_000);
    expect(oddsFallBelowMs({ outageAgeMs: 10_000, withinMs: 30_000, pastOutagesMs: [] }, 0.01)).toBe(29_600);
  });

  it('0 when the odds are already below `least`; the whole time left when `least` is 0 or nothing is left', () => {
    expect(oddsFallBelowMs({ outageAgeMs: 100_000, withinMs: 30_000, pastOutagesMs: [] }, 0.25)).toBe(0);
    expect(oddsFallBelowMs({ outageAgeMs: 100_000, withinMs: 30_000, pastOutagesMs: [] }, 0)).toBe(30_000);
    expect(oddsFallBelowMs({ outageAgeMs: 5_000, withinMs: 0, pastOutagesMs: [] }, 0.25)).toBe(0);
  });

  it('with history: the odds fall linearly between past outages and drop when the age passes one of them', () => {
    // until 5 s both past outages count (the 5 s one would end in time): (1 + 2 (31 - a) / 31) / 4, still
    // above 1/2 at 5 s; from 5 s only the 100 s one: (2 (31 - a) / 31) / 3, below 1/2 from 7.75 s
    const input = { outageAgeMs: 1_000, withinMs: 30_000, pastOutagesMs: [100_000, 5_000] };
    expect(oddsFallBelowMs(input, 0.5)).toBe(6_750);
    // the drop itself can be the crossing: past a 5 s outage, a 10 s limit has odds 1/2 < 0.6 at once
    expect(oddsFallBelowMs({ outageAgeMs: 0, withinMs: 10_000, pastOutagesMs: [5_000] }, 0.6)).toBe(5_000);
  });

  it('is the moment `recoveryOdds`, judged again as time passes, crosses `least`', () => {
    const inputs: RecoveryOddsInput[] = [
      { outageAgeMs: 0, withinMs: 30_000, pastOutagesMs: [] },
      { outageAgeMs: 2_000, withinMs: 20_000, pastOutagesMs: [3_000, 4_000, 60_000, 800] },
      { outageAgeMs: 500, withinMs: 60_000, pastOutagesMs: Array(8).fill(12_000) },
      { outageAgeMs: 40_000, withinMs: 30_000, pastOutagesMs: [45_000, 90_000, 50_000] },
    ];
    for (const input of inputs) {
      for (const least of [0.02, 0.1, 0.25, 0.5]) {
        const t = oddsFallBelowMs(input, least);
        expect(t).toBeGreaterThan(0);
        expect(t).toBeLessThan(input.withinMs);
        expect(later(input, t - 1)).toBeGreaterThanOrEqual(least);
        expect(later(input, t + 1)).toBeLessThan(least);
      }
    }
  });
});
