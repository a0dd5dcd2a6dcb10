/** Why a call stops without another attempt. */
export type GiveUpReason =
  | 'non_retryable'
  | 'max_attempts'
  | 'deadline'
  | 'aborted'
  | 'not_idempotent'
  | 'retry_after_too_long'
  | 'condition_unmet'
  /** The failure comes from an inner resilience layer that already retried: an outer layer does not multiply it. */
  | 'already_retried'
  /** The endpoint's breaker was not admitting and its wait queue was full (`breakerMaxWaiting`). */
  | 'shed';

/** What the loop does after a failed attempt. Plain data: the loop only carries it out. */
export type Decision =
  /** Back off, then try again. */
  | { readonly kind: 'retry'; readonly delayMs: number }
  /** Wait for the endpoint's `Retry-After`, then try again. */
  | { readonly kind: 'wait'; readonly delayMs: number }
  /** Run the caller's recovery for this failure type (re-initialize a session, reconnect), then try again. */
  | { readonly kind: 'reconnect'; readonly delayMs: number }
  | { readonly kind: 'give_up'; readonly reason: GiveUpReason }
  /** The endpoint's retry budget refused the retry. */
  | { readonly kind: 'budget_exhausted' }
  /** The endpoint's breaker is open: no more attempts until it half-opens. */
  | { readonly kind: 'circuit_open'; readonly retryAfterMs: number };

export type DecisionKind = Decision['kind'];
