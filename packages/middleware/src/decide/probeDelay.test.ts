import { describe, expect, it } from 'vitest';
import { IDLE_AGE_SHARE, LONE_AGE_SHARE, probeDelay } from './probeDelay.js';

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

  it('while nobody waits, grows with the outage age up to breakerIdleMaxBreakMs', () => {
    const idle = (outageAgeMs: number) => probeDelay({ ...base, waiting: 0, failedProbes: 5, outageAgeMs });
    expect(IDLE_AGE_SHARE).toBe(1);
    expect([0, 1_000, 6_000, 20_000, 29_000, 600_000].map(idle)).toEqual([
      4_000, 4_000, 6_000, 20_000, 29_000, 30_000,
    ]);
  });

  it('while one call waits alone, stretches to half the age', () => {
    const lone = (outageAgeMs: number) => probeDelay({ ...base, waiting: 1, failedProbes: 1, outageAgeMs });
    expect(LONE_AGE_SHARE).toBe(0.5);
    expect([0, 4_000, 8_000, 40_000, 600_000].map(lone)).toEqual([1_000, 2_000, 4_000, 20_000, 30_000]);
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
