import { describe, expect, it } from 'vitest';
import { AGE_SHARE, probeDelay } from './probeDelay.js';

describe('probeDelay', () => {
  const base = {
    failedProbes: 0,
    outageAgeMs: 0,
    waiting: 2,
    expectedRecoveryMs: 0,
    breakerBreakMs: 500,
    breakerMaxBreakMs: 4_000,
    breakerIdleMaxBreakMs: 30_000,
    breakerJitter: 0,
    random: () => 0.5,
  };

  it('doubles per failed probe up to the cap when the endpoint has no history', () => {
    expect([0, 1, 2, 3, 4, 10].map((failedProbes) => probeDelay({ ...base, failedProbes }))).toEqual([
      500, 1_000, 2_000, 4_000, 4_000, 4_000,
    ]);
  });

  it('probes when past outages say this one ends, within [breakerBreakMs, cap]', () => {
    expect(probeDelay({ ...base, failedProbes: 3, expectedRecoveryMs: 1_700 })).toBe(1_700);
    expect(probeDelay({ ...base, expectedRecoveryMs: 100 })).toBe(500);
    expect(probeDelay({ ...base, expectedRecoveryMs: 60_000 })).toBe(4_000);
  });

  it('while fewer than two calls wait, stretches to a quarter of the outage age, up to breakerIdleMaxBreakMs', () => {
    expect(AGE_SHARE).toBe(0.25);
    for (const waiting of [0, 1]) {
      const delay = (outageAgeMs: number) => probeDelay({ ...base, waiting, failedProbes: 5, outageAgeMs });
      expect([0, 1_000, 20_000, 40_000, 100_000, 600_000].map(delay)).toEqual([
        4_000, 4_000, 5_000, 10_000, 25_000, 30_000,
      ]);
    }
    const lone = (outageAgeMs: number) => probeDelay({ ...base, waiting: 1, failedProbes: 1, outageAgeMs });
    expect([0, 4_000, 8_000, 40_000].map(lone)).toEqual([1_000, 1_000, 2_000, 10_000]);
  });

  it('while calls wait, stays soon whatever the age', () => {
    const waiting = (outageAgeMs: number) => probeDelay({ ...base, failedProbes: 1, outageAgeMs });
    expect([0, 2_000, 8_000, 40_000, 600_000].map(waiting)).toEqual([1_000, 1_000, 1_000, 1_000, 1_000]);
  });

  it('never goes below the soon cap when breakerIdleMaxBreakMs is smaller', () => {
    expect(probeDelay({ ...base, waiting: 0, breakerIdleMaxBreakMs: 1_000, outageAgeMs: 60_000 })).toBe(
      4_000,
    );
  });

  it('spreads the delay by the jitter', () => {
    expect(probeDelay({ ...base, breakerJitter: 0.2, random: () => 0 })).toBe(400);
    expect(probeDelay({ ...base, breakerJitter: 0.2, random: () => 0.999_999 })).toBeCloseTo(600, 2);
  });
});
