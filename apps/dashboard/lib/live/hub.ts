import type { BreakerSummary } from '../data/types';

export type LiveEvent =
  | {
      readonly type: 'breaker';
      readonly breakers: BreakerSummary[];
      readonly removed: Array<{ server: string; tool: string | null }>;
    }
  | { readonly type: 'alert'; readonly changes: Array<{ key: string; state: string }> }
  | { readonly type: 'ingest'; readonly signal: 'metrics' | 'traces' }
  /** New data may be there (polling sources, every scrape interval): refresh the numbers. */
  | { readonly type: 'tick' };

/** In-process fan-out of live events to the SSE connections. */
export class LiveHub {
  private readonly listeners = new Set<(e: LiveEvent) => void>();

  subscribe(listener: (e: LiveEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: LiveEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // one broken connection never affects the others
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
