import { seededRandom } from '@mcp-resilience/middleware/testing';

/** A uniform in [0, 1) that depends only on its integer inputs: a stateless draw, keyed by (seed, call, attempt, ...). */
export function hashUniform(...keys: number[]): number {
  let h = 0x811c9dc5;
  for (const k of keys) {
    h = Math.imul(h ^ (k >>> 0), 0x01000193);
    h ^= h >>> 13;
    h = Math.imul(h, 0x5bd1e995);
    h ^= h >>> 15;
  }
  return seededRandom(h)();
}
