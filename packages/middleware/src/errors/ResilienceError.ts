import type { Classification } from '../classify/Classification.js';
import { hasResilienceBrand, RESILIENCE_ERROR_BRAND } from '../classify/resilienceBrand.js';
import type { DecisionKind, GiveUpReason } from '../decide/Decision.js';

/**
 * The error `execute` throws when a call fails for good. It carries the last failure's classification, the
 * attempts made and why the loop stopped, so that outer layers (an agent loop, LangGraph) can see that
 * retrying already happened. The original error is `cause`.
 */
export class ResilienceError extends Error {
  override readonly name = 'ResilienceError';
  readonly classification: Classification;
  readonly attempts: number;
  /** Why no further attempt was made. */
  readonly reason: GiveUpReason | Exclude<DecisionKind, 'retry' | 'wait' | 'reconnect' | 'give_up'>;
  /** For `circuit_open` (and `shed`): how long until the endpoint's breaker probes again, when known. */
  readonly retryAfterMs?: number;
  readonly [RESILIENCE_ERROR_BRAND] = true;

  constructor(
    classification: Classification,
    attempts: number,
    reason: ResilienceError['reason'],
    cause: unknown,
    retryAfterMs?: number,
  ) {
    const what = classification.message ? `: ${classification.message}` : '';
    super(
      `${classification.class} ${classification.type} after ${attempts} attempt${attempts === 1 ? '' : 's'} (${reason})${what}`,
      { cause },
    );
    this.classification = classification;
    this.attempts = attempts;
    this.reason = reason;
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
  }
}

/** True for a `ResilienceError`, also one from another copy of this package. */
export function isResilienceError(error: unknown): error is ResilienceError {
  return hasResilienceBrand(error);
}
