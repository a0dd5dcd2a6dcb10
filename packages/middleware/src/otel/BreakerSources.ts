import type { Attributes, ObservableResult } from '@opentelemetry/api';
import type { BreakerSnapshot } from '../decide/BreakerState.js';
import { breakerMetricAttributes, stateValue } from './attributes.js';
import { ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, STATE_VALUES } from './semconv.js';

/** Breaker sources (resilience instances) followed at most; the oldest is dropped beyond. */
const MAX_BREAKER_SOURCES = 256;
const STATE_RANK: Readonly<Record<string, number>> = { closed: 0, half_open: 1, open: 2 };

interface BreakerReading {
  readonly attributes: Attributes;
  state: string;
  waiting: number;
}

/** The breakers of every resilience instance attached to the recorder, read by the observable gauges. */
export class BreakerSources {
  private readonly sources: Array<() => readonly BreakerSnapshot[]> = [];

  constructor(private readonly report: (error: unknown) => void) {}

  add(source: unknown): void {
    if (typeof source !== 'function' || this.sources.includes(source as () => readonly BreakerSnapshot[]))
      return;
    this.sources.push(source as () => readonly BreakerSnapshot[]);
    if (this.sources.length > MAX_BREAKER_SOURCES) this.sources.shift();
  }

  /** `mcp.resilience.circuit_breaker.state`, one-hot: 1 for each breaker's state, 0 for the others. */
  observeStates(result: ObservableResult): void {
    for (const { attributes, state } of this.read()) {
      for (const value of STATE_VALUES) {
        result.observe(value === state ? 1 : 0, {
          ...attributes,
          [ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE]: value,
        });
      }
    }
  }

  /** `mcp.resilience.circuit_breaker.waiting`: the calls waiting at each breaker's gate. */
  observeWaiting(result: ObservableResult): void {
    for (const { attributes, waiting } of this.read()) result.observe(waiting, attributes);
  }

  /** Per breaker attribute set: the worst state and the calls waiting, over every source. */
  private read(): Iterable<BreakerReading> {
    // Several resilience instances may share a server name: keep the worst state, sum the waiting calls.
    const byKey = new Map<string, BreakerReading>();
    for (const snapshot of this.snapshots()) {
      const attributes = breakerMetricAttributes(snapshot.endpoint, snapshot.attributes ?? {});
      const key = JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)));
      const state = stateValue(snapshot.state);
      const waiting = Number.isFinite(snapshot.waiting) ? Math.max(0, snapshot.waiting ?? 0) : 0;
      const seen = byKey.get(key);
      if (!seen) byKey.set(key, { attributes, state, waiting });
      else {
        seen.waiting += waiting;
        if ((STATE_RANK[state] ?? -1) > (STATE_RANK[seen.state] ?? -1)) seen.state = state;
      }
    }
    return byKey.values();
  }

  private *snapshots(): Iterable<BreakerSnapshot> {
    for (const breakers of this.sources) {
      try {
        yield* breakers();
      } catch (error) {
        this.report(error);
      }
    }
  }
}
