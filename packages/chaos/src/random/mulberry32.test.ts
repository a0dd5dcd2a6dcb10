import { describe, expect, it } from 'vitest';
import { mulberry32 } from './mulberry32.js';

const take = (random: () => number, n: number) => Array.from({ length: n }, random);

describe('mulberry32', () => {
  it('repeats the sequence for the same seed', () => {
    expect(take(mulberry32(42), 10)).toEqual(take(mulberry32(42), 10));
    expect(take(mulberry32(42), 10)).not.toEqual(take(mulberry32(43), 10));
  });

  it('draws uniformly in [0, 1)', () => {
    const draws = take(mulberry32(1), 10_000);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
    expect(mean).toBeCloseTo(0.5, 1);
  });
});
