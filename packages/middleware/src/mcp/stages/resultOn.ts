import type { ResilienceError } from '../../errors/ResilienceError.js';
import { CLASSIFICATION_META_KEY, classificationMeta } from '../classificationMeta.js';
import { nonRetryableResult } from '../nonRetryableResult.js';
import { outcomeResult, type TerminalOutcome, terminalOutcome } from '../outcomeResult.js';
import { type CallToolResult, ToolResultError } from '../ToolResultError.js';
import type { Answer } from './Settled.js';
import type { Stage } from './Stage.js';

export interface ResultOnOptions {
  /** `'result'`: a non-retryable failure resolves to an `isError` result telling the model what to change. */
  readonly nonRetryableAs?: 'throw' | 'result';
  /** The other terminal outcomes that resolve to an `isError` result. */
  readonly resultOn?: readonly TerminalOutcome[];
}

/** Whether a non-retryable failure becomes a result: never the caller's own cancellation. */
const nonRetryable = (error: ResilienceError): boolean =>
  error.classification.class === 'non_retryable' &&
  error.classification.type !== 'cancelled' &&
  error.reason !== 'aborted';

/**
 * The answer to a failed tool call, every result with its classification in `_meta`: the tool's own `isError`
 * result (with the non-retryable explanation appended, when asked), a non-retryable failure as a result, a
 * `resultOn` outcome as a result, else the error thrown.
 */
export function failureAnswer(error: ResilienceError, tool: string, options: ResultOnOptions): Answer {
  const meta = classificationMeta(error);
  const asResult = options.nonRetryableAs === 'result' && nonRetryable(error);
  const withMeta = (result: CallToolResult): Answer => ({
    kind: 'result',
    result: { ...result, _meta: { ...result._meta, [CLASSIFICATION_META_KEY]: meta } },
  });
  if (error.cause instanceof ToolResultError) {
    const original = error.cause.result;
    return withMeta(asResult ? nonRetryableResult(meta, meta.attempts, tool, original) : original);
  }
  if (asResult) return withMeta(nonRetryableResult(meta, meta.attempts, tool));
  const outcome = terminalOutcome(error);
  if (outcome !== undefined && options.resultOn?.includes(outcome)) {
    return withMeta(outcomeResult(outcome, error, tool));
  }
  return { kind: 'throw', error };
}

/** Results for outcomes: a failed `tools/call` answers with what {@link failureAnswer} gives. */
export function resultOn(options: ResultOnOptions = {}): Stage {
  return {
    after: (call, settled) =>
      settled.kind === 'failed'
        ? { ...settled, answer: failureAnswer(settled.error, call.tool, options) }
        : settled,
  };
}
