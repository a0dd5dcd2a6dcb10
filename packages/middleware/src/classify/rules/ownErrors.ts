import type { Classification } from '../Classification.js';
import type { ErrorFacts } from '../inspectError.js';

/**
 * Step 3: this library's own errors. A `ResilienceError` (anywhere in the chain) keeps the classification it
 * carries, with source `resilience_error`, so that wrapping one call in another does not multiply retries.
 * Its message stays the one it carries.
 * An `AttemptTimeoutError` (the loop's per-attempt time limit, matched by name) is a retryable `timeout`.
 */
export function ownErrors(facts: readonly ErrorFacts[]): Classification | undefined {
  for (const fact of facts) {
    if (fact.resilience !== undefined) return { ...fact.resilience, source: 'resilience_error' };
    if (fact.name === 'AttemptTimeoutError') {
      return { class: 'retryable', type: 'timeout', execution: 'unknown', source: 'attempt_timeout' };
    }
  }
  return undefined;
}
