import { describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import { nonRetryableResult, nonRetryableText } from './nonRetryableResult.js';
import { CLASSIFICATION_META_KEY } from './withResilience.js';

const invalid: Classification = {
  class: 'non_retryable',
  type: 'invalid_params',
  execution: 'not_sent',
  source: 'jsonrpc.code',
  message: 'MCP error -32602: city must be a string',
};

describe('nonRetryableResult', () => {
  it('tells the model what was wrong, that it was not retried, and what to change', () => {
    expect(nonRetryableText(invalid, 1, 'get_weather')).toBe(
      [
        "Tool call 'get_weather' failed with a non-retryable error (invalid_params): MCP error -32602: city must be a string",
        'It was not retried (1 attempt made): calling it again with the same arguments cannot succeed.',
        'Check the arguments against the tool’s input schema, then call it again with corrected arguments.',
      ].join('\n'),
    );
  });

  it('has advice for each non-retryable type, and a generic one', () => {
    const text = (type: Classification['type']) => nonRetryableText({ ...invalid, type }, 2, undefined);
    expect(text('method_not_found')).toMatch(/list the tools/);
    expect(text('unauthorized')).toMatch(/a human has to fix them/);
    expect(text('user_action_required')).toMatch(/ask the user/);
    expect(text('tool_error')).toMatch(/read it/);
    expect(text('unknown')).toMatch(/Change the arguments or the approach/);
    expect(text('unknown')).toMatch(/^Tool call failed .*\n.*\(2 attempts made\)/);
  });

  it('is an isError result; a result the tool returned keeps its content, the explanation appended', () => {
    expect(nonRetryableResult(invalid, 1, 'get_weather')).toEqual({
      content: [{ type: 'text', text: nonRetryableText(invalid, 1, 'get_weather') }],
      isError: true,
    });
    const original = {
      content: [{ type: 'text' as const, text: 'Invalid city: "Atlantis"' }],
      structuredContent: { error: 'bad city' },
      isError: true,
    };
    const result = nonRetryableResult(invalid, 1, 'get_weather', original);
    expect(result.content).toHaveLength(2);
    expect(result.content[0]).toEqual(original.content[0]);
    expect(result.structuredContent).toEqual({ error: 'bad city' });
  });

  it('keeps a result another mcp-resilience layer already explained as it is: one sentence, not two', () => {
    const inner = nonRetryableResult(invalid, 1, 'get_weather');
    const classified = { ...inner, _meta: { [CLASSIFICATION_META_KEY]: { ...invalid, attempts: 1 } } };
    const outer = nonRetryableResult({ ...invalid, type: 'tool_error' }, 1, 'get_weather', classified);
    expect(outer.content).toEqual(inner.content);
    expect(outer.isError).toBe(true);
    // Another layer's key only: a tool's own _meta does not count.
    const own = { ...inner, _meta: { 'example.com/trace': 'x' } };
    expect(nonRetryableResult(invalid, 1, 'get_weather', own).content).toHaveLength(2);
  });
});
