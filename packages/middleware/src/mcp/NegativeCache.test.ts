import { describe, expect, it } from 'vitest';
import { NegativeCache } from './NegativeCache.js';

describe('NegativeCache', () => {
  it('answers within the TTL, not after, and a hit does not extend it', () => {
    const cache = new NegativeCache<string>(1_000, 10);
    cache.set('k', 'failed', 42, 0);
    expect(cache.get('k', 999)).toEqual({ value: 'failed', durationMs: 42, expiresAt: 1_000 });
    expect(cache.get('k', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops the least recently used entry beyond its cap', () => {
    const cache = new NegativeCache<number>(1_000, 2);
    cache.set('a', 1, 0, 0);
    cache.set('b', 2, 0, 0);
    cache.get('a', 1); // a is now the most recent
    cache.set('c', 3, 0, 1);
    expect(cache.get('b', 2)).toBeUndefined();
    expect(cache.get('a', 2)?.value).toBe(1);
    expect(cache.get('c', 2)?.value).toBe(3);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('remembers nothing with a TTL of 0', () => {
    const cache = new NegativeCache<number>(0, 2);
    cache.set('a', 1, 0, 0);
    expect(cache.size).toBe(0);
  });
});
