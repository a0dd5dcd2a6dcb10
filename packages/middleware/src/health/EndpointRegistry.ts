import type { Clock } from '../Clock.js';
import type { BreakerSnapshot } from '../decide/BreakerState.js';
import type { Transition } from './CircuitBreaker.js';
import { Endpoint, type EndpointOptions } from './Endpoint.js';

/**
 * Endpoints created on demand and bounded: at `maxEndpoints`, a new one replaces a least recently used one
 * (preferring one whose breaker is closed and whose gate holds no call, so an open breaker is not forgotten
 * while others are idle).
 */
export class EndpointRegistry {
  private readonly endpoints = new Map<string, Endpoint>();
  private tick = 0;

  constructor(
    private readonly options: EndpointOptions & { readonly maxEndpoints: number },
    private readonly clock: Clock,
    private readonly onTransition: (endpoint: Endpoint, transition: Transition) => void,
    /** Told of every endpoint created (the fleet attaches to it). */
    private readonly onCreate?: (endpoint: Endpoint) => void,
  ) {}

  get(key: string, attributes: Readonly<Record<string, string>>): Endpoint {
    let endpoint = this.endpoints.get(key);
    if (!endpoint) {
      if (this.endpoints.size >= this.options.maxEndpoints) this.evict();
      endpoint = new Endpoint(key, attributes, this.options, this.clock, this.onTransition);
      this.endpoints.set(key, endpoint);
      this.onCreate?.(endpoint);
    }
    endpoint.touch(++this.tick);
    return endpoint;
  }

  snapshots(): BreakerSnapshot[] {
    const now = this.clock.now();
    return [...this.endpoints.values()].map((e) => e.snapshot(now));
  }

  /** The endpoint tracked under `key`, if any (none is created). */
  find(key: string): Endpoint | undefined {
    return this.endpoints.get(key);
  }

  /** Every tracked endpoint, least recently used first. */
  all(): Endpoint[] {
    return [...this.endpoints.values()].sort((a, b) => a.lastUsed - b.lastUsed);
  }

  get size(): number {
    return this.endpoints.size;
  }

  /** Drops the least recently used of the oldest 32 endpoints, preferring one whose breaker is closed (approximate LRU, O(1)). */
  private evict(): void {
    let victim: Endpoint | undefined;
    let scanned = 0;
    for (const endpoint of this.endpoints.values()) {
      const better =
        !victim ||
        idle(endpoint) > idle(victim) ||
        (idle(endpoint) === idle(victim) && endpoint.lastUsed < victim.lastUsed);
      if (better) victim = endpoint;
      if (++scanned >= 32) break;
    }
    if (!victim) return;
    victim.dispose();
    this.endpoints.delete(victim.key);
  }
}

const idle = (e: Endpoint) => e.state === 'closed' && e.waiting === 0;
