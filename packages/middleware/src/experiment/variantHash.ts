/**
 * A stable hash of a string to [0, 1): FNV-1a (32 bits) with the murmur3 finalizer, so nearby keys
 * (`conv-1`, `conv-2`) spread evenly. The same key gives the same number in every process and version.
 */
export function variantHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return finalize(h);
}

/** The murmur3 finalizer, then to [0, 1). */
function finalize(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}
