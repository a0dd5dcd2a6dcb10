import type { Clock } from '../Clock.js';
import type { ResolvedOptions } from '../options.js';
import { CircuitBreaker, type Transition } from './CircuitBreaker.js';
import { EndpointHistory } from './EndpointHistory.js';
import { RetryBudget } from './RetryBudget.js';

/** Everything kept per endpoint key: its breaker, retry budget, history and the `Retry-After` it announced. */
export class Endpoint {
  readonly breaker: CircuitBreaker;
  readonly budget: RetryBudget;
  readonly history: EndpointHistory;
  /** Epoch milliseconds before which the endpoint asked not to be called (`Retry-After`). */
  retryAfterUntil = 0;
  /** A tick of the registry, for least-recently-used eviction. */
  lastUsed = 0;

  constructor(
    readonly key: string,
    attributes: Readonly<Record<string, string>>,
    options: ResolvedOptions,
    clock: Clock,
    onTransition: (endpoint: Endpoint, transition: Transition) => void,
  ) {
    this.breaker = new CircuitBreaker(key, attributes, options, clock, (t) => onTransition(this, t));
    this.budget = new RetryBudget(options);
    this.history = new EndpointHistory(options.adaptiveHistorySize);
  }
}
