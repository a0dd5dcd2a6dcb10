import { describe, expect, it } from 'vitest';
import { NAIVE_RETRIES_MS, naiveRetryAt } from './naiveRetryAt.js';

describe('naiveRetryAt', () => {
  it("is the naive loop's next retry from its call's start: +1, +3, +7, +15, +31 s", () => {
    expect(NAIVE_RETRIES_MS).toEqual([1_000, 3_000, 7_000, 15_000, 31_000]);
    const at = (now: number) => naiveRetryAt(10_000, 60_000, now);
    expect([10_000, 10_999, 11_000, 12_500, 16_000, 24_000, 40_999].map(at)).toEqual([
      11_000, 11_000, 13_000, 13_000, 17_000, 25_000, 41_000,
    ]);
  });

  it('is undefined once the loop has given up (after +31 s)', () => {
    expect(naiveRetryAt(10_000, 60_000, 41_000)).toBeUndefined();
    expect(naiveRetryAt(0, 60_000, 100_000)).toBeUndefined();
  });

  it("keeps to the call's span (a deadline): no retry after it", () => {
    const at = (now: number) => naiveRetryAt(0, 10_000, now);
    expect([0, 1_000, 3_000, 6_999, 7_000].map(at)).toEqual([1_000, 3_000, 7_000, 7_000, undefined]);
    expect(naiveRetryAt(0, 15_000, 7_000)).toBe(15_000);
  });
});
