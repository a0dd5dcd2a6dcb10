/** One remembered failure: what the call ended with, and how long it took. */
export interface NegativeEntry<T> {
  readonly value: T;
  /** Duration of the original failed call: the time each repeat answered from the cache saves. */
  readonly durationMs: number;
  readonly expiresAt: number;
}

/**
 * A short-lived memory of calls that failed for good (non-retryable), keyed by {@link callKey}: an identical
 * repeat within `ttlMs` is answered from it without a request. Bounded: beyond `maxEntries` the least recently
 * used entry is dropped; an entry expires `ttlMs` after the failure (a hit does not extend it).
 */
export class NegativeCache<T> {
  private readonly entries = new Map<string, NegativeEntry<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The live entry for `key`, refreshed as most recently used; expired entries are removed. */
  get(key: string, now: number): NegativeEntry<T> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (now >= entry.expiresAt) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, value: T, durationMs: number, now: number): void {
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, durationMs, expiresAt: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
  }

  /** Forgets everything: the server's state may have changed (a tool that writes succeeded, the tools changed). */
  clear(): void {
    this.entries.clear();
  }
}
