import type { Classification, ErrorType } from '../classify/Classification.js';
import type { ClassificationRule } from '../classify/ClassificationRule.js';
import type { CallContext } from './CallContext.js';

export type { AttemptContext } from '../attempt/AttemptContext.js';
export type { CallContext, RoutedFrom } from './CallContext.js';

/** Recovers from a `conditional` failure (re-initialize a session, reconnect) before the next attempt. */
export type Recovery = (context: {
  readonly classification: Classification;
  readonly attempt: number;
  readonly signal: AbortSignal;
}) => Promise<void> | void;

/** Options of one `execute` call, with its typed context (`variant`, `sessionId`, `routedFrom`). All optional. */
export interface CallOptions extends CallContext {
  /** The breaker, budget and adaptive-backoff key. Default `'default'`. */
  readonly endpoint?: string;
  /** The operation's name, for telemetry and scoped rules. Default `'call'`. */
  readonly operation?: string;
  /**
   * Whether the operation is safe to repeat. Failures that may have executed (`unknown`, `executed`) are retried
   * only when true. Default `true` for plain functions; the MCP edge derives it from the method and annotations.
   */
  readonly idempotent?: boolean;
  /** The caller's signal: aborting it stops the call at once, without retry. */
  readonly signal?: AbortSignal;
  /** Deadline of this call, overriding the `timeoutMs` option. */
  readonly timeoutMs?: number;
  /** Attempts of this call, overriding the `maxAttempts` option. */
  readonly maxAttempts?: number;
  /** Low-cardinality telemetry attributes of the call (`mcp.resilience.server`, `mcp.method.name`, `gen_ai.tool.name`). */
  readonly attributes?: Readonly<Record<string, string>>;
  /** Telemetry attributes of the endpoint (its breaker), set when the endpoint is first seen. Default none. */
  readonly endpointAttributes?: Readonly<Record<string, string>>;
  /** Rules for this call, run after the instance's `rules` and before the built-in ones (edges use them). */
  readonly rules?: readonly ClassificationRule[];
  /** Recoveries for `conditional` failure types; such a failure is retried only when a recovery is given. */
  readonly recover?: Partial<Record<ErrorType, Recovery>>;
}
