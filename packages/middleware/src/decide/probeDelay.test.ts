import { describe, expect, it } from 'vitest';
import { probeDelay } from './probeDelay.js';

describe('probeDelay', () => {
  const base = {
    failedProbes: 0,
    expectedRecoveryMs: 0,
    breakerBreakMs: 500,
    breakerMaxBreakMs: 4_000,
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

  it('spreads the delay by the jitter', () => {
    expect(probeDelay({ ...base, breakerJitter: 0.2, random: () => 0 })).toBe(400);
    expect(probeDelay({ ...base, breakerJitter: 0.2, random: () => 0.999_999 })).toBeCloseTo(600, 2);
  });
});
