import type { ClassificationRule } from './ClassificationRule.js';

/** What the classifier may know besides the error itself. Every field is optional. */
export interface ClassifyContext {
  /** The endpoint key (breaker and budget key), for scoped rules. */
  readonly endpoint?: string;
  /** The operation name, for scoped rules. */
  readonly operation?: string;
  /** Rules that run before the built-in ones, first match wins. */
  readonly rules?: readonly ClassificationRule[];
  /** The caller's signal: when it is aborted, the failure is a caller abort (`cancelled`). */
  readonly signal?: AbortSignal;
  /** Epoch milliseconds used to turn an HTTP-date `Retry-After` into a delay. Defaults to `Date.now()`. */
  readonly now?: number;
}
