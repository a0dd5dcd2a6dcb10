import { describe, expect, it } from 'vitest';
import { naiveRetryBy } from './naiveRetryBy.js';

describe('naiveRetryBy', () => {
  it("is the last of the naive loop's retries (+1, +3, +7, +15, +31 s) after now and by the given time", () => {
    const by = (now: number, until: number) => naiveRetryBy(10_000, 60_000, now, until);
    expect(by(10_100, 13_900)).toBe(13_000);
    expect(by(10_100, 13_000)).toBe(13_000);
    expect(by(10_100, 12_999)).toBe(11_000);
    expect(by(11_000, 20_000)).toBe(17_000);
    expect(by(11_500, 60_000)).toBe(41_000);
  });

  it('is undefined when no retry of the loop comes after now and by then', () => {
    expect(naiveRetryBy(10_000, 60_000, 10_100, 10_999)).toBeUndefined();
    expect(naiveRetryBy(10_000, 60_000, 13_000, 16_999)).toBeUndefined();
    expect(naiveRetryBy(10_000, 60_000, 41_000, 90_000)).toBeUndefined();
    expect(naiveRetryBy(10_000, 60_000, 12_000, 12_000)).toBeUndefined();
  });

  it("keeps to the call's span", () => {
    expect(naiveRetryBy(0, 10_000, 100, 20_000)).toBe(7_000);
    expect(naiveRetryBy(0, 15_000, 100, 20_000)).toBe(15_000);
  });
});
