import type { Classification, ErrorClass, ErrorType, Execution } from './Classification.js';
import type { ClassifyContext } from './ClassifyContext.js';

/** What a rule decides. `execution` defaults to what the built-in rules would say, else `unknown`. */
export interface RuleVerdict {
  readonly class: ErrorClass;
  readonly type: ErrorType;
  readonly execution?: Execution;
  readonly retryAfterMs?: number;
  readonly healthNeutral?: boolean;
}

/**
 * A declarative rule: every condition given must match. Conditions look at the error and its `cause` chain.
 *
 * @example { name: 'city-not-found', message: /unknown city/i, classify: { class: 'non_retryable', type: 'invalid_params' } }
 */
export interface DeclarativeRule {
  /** Names the rule in `Classification.source` (`rule:<name>`). */
  readonly name?: string;
  /** HTTP status (from `status`, `statusCode`, `response.status` or a numeric `code` in 100..599). */
  readonly status?: number | readonly number[];
  /** `error.code`, numeric (JSON-RPC) or string (Node). */
  readonly code?: number | string | ReadonlyArray<number | string>;
  /** `error.name`, for example `McpError`. */
  readonly errorName?: string | readonly string[];
  /** Tested against the error's message. A string matches case-insensitively as a substring. */
  readonly message?: RegExp | string;
  /** Only for this endpoint (or these endpoints). */
  readonly endpoint?: string | readonly string[];
  /** Only for this operation (or these operations). */
  readonly operation?: string | readonly string[];
  readonly classify: RuleVerdict;
}

/** A rule as a function: return a verdict to decide, or `undefined` to pass. A throwing rule is skipped. */
export type FunctionRule = (
  error: unknown,
  context: ClassifyContext,
) => RuleVerdict | Classification | undefined;

export type ClassificationRule = DeclarativeRule | FunctionRule;
