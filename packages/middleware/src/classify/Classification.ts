/** How a failure may be retried. */
export const ERROR_CLASSES = ['retryable', 'non_retryable', 'conditional'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/**
 * The low-cardinality failure types. This list is the `error.type` attribute of every metric and span:
 * adding a value is a feature, renaming one is a breaking change.
 */
export const ERROR_TYPES = [
  'timeout',
  'network',
  'connection_closed',
  'server_error',
  'unavailable',
  'rate_limited',
  'quota_exceeded',
  'invalid_params',
  'invalid_request',
  'parse_error',
  'method_not_found',
  'not_found',
  'conflict',
  'unauthorized',
  'forbidden',
  'payload_too_large',
  'session_expired',
  'user_action_required',
  'tool_error',
  'cancelled',
  'circuit_open',
  'budget_exhausted',
  'unknown',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/**
 * Whether the operation may have run on the server:
 * - `not_sent`: it certainly did not (connection refused, breaker open);
 * - `unknown`: it may have (timeout, reset after send, 5xx from a proxy);
 * - `executed`: it ran and failed (a tool error, a JSON-RPC error from the handler).
 * A failure that is not `not_sent` is retried only when the operation is safe to repeat.
 */
export const EXECUTION_STATES = ['not_sent', 'unknown', 'executed'] as const;
export type Execution = (typeof EXECUTION_STATES)[number];

/** What the classifier says about one failure. Plain data: it can be logged, compared and serialised. */
export interface Classification {
  readonly class: ErrorClass;
  readonly type: ErrorType;
  readonly execution: Execution;
  /** Milliseconds to wait before the endpoint will accept a retry (`Retry-After`, breaker). */
  readonly retryAfterMs?: number;
  /** The rule that decided, for example `http.status`, `node.code`, `message.keyword`, `rule:my-rule`, `default`. */
  readonly source: string;
  /** The error's message, length-capped, not redacted: redact before exporting it. */
  readonly message?: string;
  /**
   * True when the failure says nothing about the endpoint's health (an MCP tool result with `isError`,
   * a rate limit, a caller abort): the circuit breaker counts it neither as a failure nor as a success.
   * Non-retryable failures are always neutral.
   */
  readonly healthNeutral?: boolean;
}

export const isErrorClass = (value: unknown): value is ErrorClass =>
  (ERROR_CLASSES as readonly unknown[]).includes(value);
export const isErrorType = (value: unknown): value is ErrorType =>
  (ERROR_TYPES as readonly unknown[]).includes(value);
export const isExecution = (value: unknown): value is Execution =>
  (EXECUTION_STATES as readonly unknown[]).includes(value);
