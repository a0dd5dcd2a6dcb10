import { describe, expect, it } from 'vitest';
import type { Classification } from '../../classify/Classification.js';
import { ResilienceError } from '../../errors/ResilienceError.js';
import { CLASSIFICATION_META_KEY } from '../classificationMeta.js';
import { ToolResultError } from '../ToolResultError.js';
import { failureAnswer } from './resultOn.js';

const error = (classification: Partial<Classification>, reason: ResilienceError['reason'], cause?: unknown) =>
  new ResilienceError(
    {
      class: 'non_retryable',
      type: 'invalid_params',
      execution: 'not_sent',
      source: 'test',
      ...classification,
    },
    1,
    reason,
    cause,
  );
const textOf = (answer: ReturnType<typeof failureAnswer>) =>
  answer.kind === 'result'
    ? (answer.result as { content: { text: string }[] }).content.map((c) => c.text)
    : [];

describe('failureAnswer', () => {
  it("returns the tool's own isError result with its classification, the explanation appended when asked", () => {
    const own = { content: [{ type: 'text', text: 'no such city' }], isError: true };
    const failed = error({ type: 'tool_error' }, 'non_retryable', new ToolResultError(own));
    const plain = failureAnswer(failed, 't', {});
    expect(textOf(plain)).toEqual(['no such city']);
    expect(plain.kind === 'result' && (plain.result as { _meta: object })._meta).toMatchObject({
      [CLASSIFICATION_META_KEY]: { type: 'tool_error', attempts: 1, reason: 'non_retryable' },
    });
    const explained = failureAnswer(failed, 't', { nonRetryableAs: 'result' });
    expect(textOf(explained)).toHaveLength(2);
    expect(textOf(explained)[1]).toContain("Tool call 't' failed with a non-retryable error (tool_error)");
  });

  it('throws unless opted in, and never turns a cancellation into a result', () => {
    const open = error({ class: 'retryable', type: 'circuit_open' }, 'circuit_open');
    expect(failureAnswer(open, 't', {})).toEqual({ kind: 'throw', error: open });
    expect(textOf(failureAnswer(open, 't', { resultOn: ['circuit_open'] }))[0]).toContain(
      "Tool 't' is unavailable",
    );
    const invalid = error({}, 'non_retryable');
    expect(failureAnswer(invalid, 't', {})).toEqual({ kind: 'throw', error: invalid });
    expect(failureAnswer(invalid, 't', { nonRetryableAs: 'result' }).kind).toBe('result');
    const cancelled = error({ type: 'cancelled' }, 'aborted');
    expect(failureAnswer(cancelled, 't', { nonRetryableAs: 'result' })).toEqual({
      kind: 'throw',
      error: cancelled,
    });
  });
});
