import { describe, expect, it } from 'vitest';
import { type BackoffOptions, backoffDelay, exponentialDelay } from './backoffDelay.js';

const options: BackoffOptions = {
  backoffBaseMs: 100,
  backoffFactor: 2,
  backoffMaxMs: 30_000,
  jitter: 'none',
};

/** The delays of retries 1..n, each fed the previous one (cockatiel's `expectDurations`). */
export function expectDelays(o: BackoffOptions, random: () => number, expected: number[]) {
  const delays: number[] = [];
  let previous = 0;
  for (let retry = 1; retry <= expected.length; retry++) {
    previous = backoffDelay(retry, previous, o, random);
    delays.push(previous);
  }
  expect(delays).toEqual(expected);
}

describe('backoffDelay', () => {
  it('grows exponentially from the base and stops at the cap', () => {
    expectDelays(options, Math.random, [100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  it('full jitter draws uniformly below the exponential delay', () => {
    expectDelays({ ...options, jitter: 'full' }, () => 0.5, [50, 100, 200, 400]);
    expectDelays({ ...options, jitter: 'full' }, () => 0, [0, 0, 0]);
  });

  it('decorrelated jitter stays between the base and three times the previous delay, capped', () => {
    expectDelays({ ...options, jitter: 'decorrelated' }, () => 1, [300, 900, 2700, 8100, 24300, 30000]);
    expectDelays({ ...options, jitter: 'decorrelated' }, () => 0, [100, 100, 100]);
  });

  it('never exceeds the cap whatever the factor', () => {
    expect(exponentialDelay(1000, { ...options, backoffFactor: 10 })).toBe(30_000);
  });
});
