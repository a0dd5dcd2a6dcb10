import { describe, expect, it } from 'vitest';
import { EndpointHistory } from './EndpointHistory.js';

describe('EndpointHistory', () => {
  it('learns how long failure streaks last and expects the median of them', () => {
    const history = new EndpointHistory(5);
    for (const [from, to] of [
      [0, 1_000],
      [5_000, 8_000],
      [10_000, 12_000],
    ]) {
      history.onFailure(from!);
      history.onSuccess(to!, to!, 10);
    }
    history.onFailure(20_000);
    expect(history.expectedRecoveryMs(20_000)).toBe(2_000); // the median of 1 000, 2 000, 3 000
    expect(history.expectedRecoveryMs(20_500)).toBe(1_500); // still the median: every past streak was longer
    expect(history.expectedRecoveryMs(21_500)).toBe(500); // 1 000 is past: the median of 2 000 and 3 000 (lower)
    expect(history.expectedRecoveryMs(23_000)).toBe(0); // longer than every past streak: unknown
  });

  it('waits out a streak that is already past every blip like the longer outages', () => {
    const history = new EndpointHistory(10);
    for (const [from, length] of [
      [0, 100],
      [1_000, 120],
      [2_000, 3_000],
      [6_000, 90],
      [7_000, 4_000],
    ]) {
      history.onFailure(from!);
      history.onSuccess(from! + length!, from! + length!, 10);
    }
    history.onFailure(20_000);
    expect(history.expectedRecoveryMs(20_000)).toBe(120);
    expect(history.expectedRecoveryMs(20_200)).toBe(2_800); // the outages: 3 000 and 4 000, lower median
  });

  it('is not fooled by the success of an attempt sent before the streak began', () => {
    const history = new EndpointHistory(5);
    history.onFailure(1_000);
    history.onSuccess(1_005, 900, 105); // sent at 900, before the endpoint went down
    history.onSuccess(3_000, 2_990, 10);
    history.onFailure(10_000);
    expect(history.expectedRecoveryMs(10_000)).toBe(2_000);
  });

  it('keeps a bounded history', () => {
    const history = new EndpointHistory(2);
    for (const length of [100, 5_000, 5_000]) {
      history.onFailure(0);
      history.onSuccess(length, length, 1);
    }
    history.onFailure(0);
    expect(history.expectedRecoveryMs(0)).toBe(5_000);
  });

  it('learns the usual latency of an attempt', () => {
    const history = new EndpointHistory(2);
    expect(history.expectedLatencyMs()).toBe(0);
    history.onSuccess(0, 0, 100);
    history.onSuccess(0, 0, 200);
    expect(history.expectedLatencyMs()).toBe(120);
  });
});
