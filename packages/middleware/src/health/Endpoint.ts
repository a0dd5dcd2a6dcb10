import type { Clock } from '../Clock.js';
import { BreakerGate, type BreakerGateOptions } from './BreakerGate.js';
import { CircuitBreaker, type CircuitBreakerOptions, type Transition } from './CircuitBreaker.js';
import { EndpointHistory } from './EndpointHistory.js';
import { RetryBudget, type RetryBudgetOptions } from './RetryBudget.js';

export type EndpointOptions = CircuitBreakerOptions &
  BreakerGateOptions &
  RetryBudgetOptions & { readonly adaptiveHistorySize: number; readonly adaptiveBackoff: boolean };

/**
 * Everything kept per endpoint key: its breaker and the gate in front of it, its retry budget, its history
 * and the `Retry-After` it announced.
 */
export class Endpoint {
  readonly breaker: CircuitBreaker;
  readonly gate: BreakerGate;
  readonly budget: RetryBudget;
  readonly history: EndpointHistory;
  /** Epoch milliseconds before which the endpoint asked not to be called (`Retry-After`). */
  retryAfterUntil = 0;
  /** A tick of the registry, for least-recently-used eviction. */
  lastUsed = 0;
  /** Told when this replica learns a new `Retry-After` hold (the fleet shares it). */
  onHold: ((until: number) => void) | undefined;
  /** The first read of the fleet's health for this endpoint, while it runs (the first call waits for it, bounded). */
  fleetRead: Promise<void> | undefined;

  constructor(
    readonly key: string,
    attributes: Readonly<Record<string, string>>,
    options: EndpointOptions,
    clock: Clock,
    onTransition: (endpoint: Endpoint, transition: Transition) => void,
  ) {
    const history = new EndpointHistory(options.adaptiveHistorySize);
    this.history = history;
    this.breaker = new CircuitBreaker(
      key,
      attributes,
      options,
      clock,
      (t) => {
        onTransition(this, t);
        this.gate.onTransition(t);
      },
      options.adaptiveBackoff ? (now) => history.expectedRecoveryMs(now) : undefined,
    );
    this.gate = new BreakerGate(this.breaker, options, clock);
    this.budget = new RetryBudget(options);
  }

  /** The endpoint asked not to be called before `until` (`Retry-After`, seen here). */
  hold(until: number): void {
    if (until <= this.retryAfterUntil) return;
    this.retryAfterUntil = until;
    this.onHold?.(until);
  }

  /** Stops the breaker's timer and fails the calls waiting at its gate (the endpoint is being dropped). */
  dispose(): void {
    this.breaker.dispose();
    this.gate.dispose();
  }
}
