import type { MetricsSource } from '../data/metrics-source';
import type { BreakerSummary } from '../data/types';
import type { LiveHub } from './hub';

export interface BreakerPollerOptions {
  readonly source: MetricsSource;
  readonly hub: LiveHub;
  /** How often breaker states are read while someone watches. */
  readonly intervalMs: number;
  /** How often watchers are told to refresh their numbers (`tick`). */
  readonly tickMs: number;
  readonly log?: (message: string) => void;
}

const keyOf = (b: { server: string; tool: string | null }) => `${b.server}\u0001${b.tool ?? ''}`;

/**
 * Live breakers for a source that cannot push (PromQL): reads the breaker states every `intervalMs` while at
 * least one SSE connection is open, and publishes what changed (state changes, new and vanished breakers) on
 * the hub, exactly as the embedded store's pushes; plus a `tick` every `tickMs` so headlines refresh. Nothing is
 * polled while nobody watches. Each replica polls on its own: no shared state.
 */
export class BreakerPoller {
  private timer: NodeJS.Timeout | undefined;
  private previous: Map<string, BreakerSummary> | undefined;
  private running: Promise<void> | undefined;
  private lastTick = 0;
  private lastError: string | undefined;

  constructor(private readonly o: BreakerPollerOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.o.intervalMs);
    this.timer.unref();
  }

  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return this.running ?? Promise.resolve();
  }

  /** One round (also called by tests); concurrent calls share the running one. */
  poll(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    if (this.o.hub.size === 0) {
      this.previous = undefined; // nobody watches: start from a fresh baseline next time
      return;
    }
    let current: BreakerSummary[];
    try {
      current = await this.o.source.breakers({ filters: {} });
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (message !== this.lastError) this.o.log?.(`live breaker polling failed: ${message}`);
      this.lastError = message;
      return;
    }
    if (this.lastError !== undefined) this.o.log?.('live breaker polling recovered');
    this.lastError = undefined;
    const now = Date.now();
    if (now - this.lastTick >= this.o.tickMs) {
      this.lastTick = now;
      this.o.hub.publish({ type: 'tick' });
    }
    const next = new Map(current.map((b) => [keyOf(b), b]));
    const previous = this.previous;
    this.previous = next;
    if (!previous) return;
    // `since` is an estimate that can move between polls: only a state change is news.
    const changed = current.filter((b) => previous.get(keyOf(b))?.state !== b.state);
    const removed = [...previous.values()]
      .filter((b) => !next.has(keyOf(b)))
      .map((b) => ({ server: b.server, tool: b.tool }));
    if (changed.length + removed.length > 0)
      this.o.hub.publish({ type: 'breaker', breakers: changed, removed });
  }
}
