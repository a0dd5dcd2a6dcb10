import type { Classification } from '../classify/Classification.js';
import type { ResilienceError } from '../errors/ResilienceError.js';

/**
 * The key under which a `tools/call` result that ended as a failure (an `isError` result, or the `'result'` form of
 * a non-retryable error) carries the final classification in its `_meta`: a {@link McpClassificationMeta}.
 */
export const CLASSIFICATION_META_KEY = 'io.mcp-resilience/classification';

/** `result._meta[CLASSIFICATION_META_KEY]`: the last failure's classification, the attempts made and why it stopped. */
export type McpClassificationMeta = Classification & {
  readonly attempts: number;
  readonly reason: ResilienceError['reason'];
};

/** The classification meta of a failed call. */
export const classificationMeta = (error: ResilienceError): McpClassificationMeta => ({
  ...error.classification,
  attempts: error.attempts,
  reason: error.reason,
});
