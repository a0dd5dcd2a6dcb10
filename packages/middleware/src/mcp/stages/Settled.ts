import type { ResilienceError } from '../../errors/ResilienceError.js';

/** What the caller of a failed call gets: the error thrown, or a result (an `isError` result for the model). */
export type Answer =
  | { readonly kind: 'throw'; readonly error: unknown }
  | { readonly kind: 'result'; readonly result: unknown };

/** How a tool call settled, as plain data between the stages. */
export type Settled =
  /** It succeeded, here or on a fallback; `changedState`: it may have changed the server's state. */
  | { readonly kind: 'value'; readonly value: unknown; readonly changedState: boolean }
  /**
   * It failed with `error`; the caller gets `answer` (the error itself until a stage shapes a result).
   * `fallback`: the failure is a fallback server's, not this server's verdict; `repeat`: answered from memory.
   */
  | {
      readonly kind: 'failed';
      readonly error: ResilienceError;
      readonly answer: Answer;
      readonly fallback?: boolean;
      readonly repeat?: boolean;
    };

/** A failure answered by throwing its error. */
export const failed = (error: ResilienceError, fallback?: boolean): Settled =>
  fallback
    ? { kind: 'failed', error, answer: { kind: 'throw', error }, fallback }
    : { kind: 'failed', error, answer: { kind: 'throw', error } };

/** What the caller gets: the value or result, else the error thrown. */
export function settle(settled: Settled): unknown {
  if (settled.kind === 'value') return settled.value;
  if (settled.answer.kind === 'result') return settled.answer.result;
  throw settled.answer.error;
}
