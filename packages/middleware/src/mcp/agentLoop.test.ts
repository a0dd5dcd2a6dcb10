import { describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import { ResilienceError } from '../errors/ResilienceError.js';
import { createMemoryRecorder } from '../record/createMemoryRecorder.js';
import { createFakeClock } from '../testing/createFakeClock.js';
import { agentLoop } from './agentLoop.js';

const invalid = new ResilienceError(
  { class: 'non_retryable', type: 'invalid_params', execution: 'not_sent', source: 'test' },
  1,
  'non_retryable',
  undefined,
);
const setup = (options: Parameters<typeof agentLoop>[0] = {}) => {
  const clock = createFakeClock(0);
  const recorder = createMemoryRecorder();
  const loop = agentLoop(options, createResilience({ clock, recorder }), () => {
    throw new Error('no fallbacks here');
  });
  return { loop, clock, recorder };
};
const attributes = { 'mcp.resilience.server': 's', 'gen_ai.tool.name': 't' };

describe('agentLoop', () => {
  it('keeps a result small enough to hold, and not a larger one', () => {
    const { loop } = setup();
    const small = { content: [{ type: 'text', text: 'bad city' }], isError: true };
    const large = { content: [{ type: 'text', text: 'x'.repeat(70_000) }], isError: true };
    expect(loop.remember('s', 't', { a: 1 }, invalid, small, 5)).toBe(small);
    expect(loop.remember('s', 't', { a: 2 }, invalid, large, 5)).toBe(large);
    expect(loop.repeat('s', 't', { a: 1 }, attributes)).toMatchObject({ kind: 'result', result: small });
    expect(loop.repeat('s', 't', { a: 2 }, attributes)).toBeUndefined();
  });

  it('remembers only non-retryable failures of the configured types, and forgets on a write or a tools change', () => {
    const { loop, recorder } = setup({ negativeCacheTypes: ['invalid_params'] });
    const retryable = new ResilienceError(
      { class: 'retryable', type: 'unavailable', execution: 'not_sent', source: 'test' },
      3,
      'max_attempts',
      undefined,
    );
    const notFound = new ResilienceError(
      { class: 'non_retryable', type: 'not_found', execution: 'executed', source: 'test' },
      1,
      'non_retryable',
      undefined,
    );
    loop.remember('s', 't', { r: 1 }, retryable, retryable, 1);
    loop.remember('s', 't', { n: 1 }, notFound, notFound, 1);
    loop.remember('s', 't', { i: 1 }, invalid, invalid, 7);
    expect(loop.repeat('s', 't', { r: 1 }, attributes)).toBeUndefined();
    expect(loop.repeat('s', 't', { n: 1 }, attributes)).toBeUndefined();
    expect(loop.repeat('s', 't', { i: 1 }, attributes)).toEqual({ kind: 'error', error: invalid });
    expect(recorder.ofType('model_retry_avoided').map((e) => e.savedMs)).toEqual([7]);
    loop.succeeded(true);
    expect(loop.repeat('s', 't', { i: 1 }, attributes)).toBeDefined();
    loop.succeeded(false);
    expect(loop.repeat('s', 't', { i: 1 }, attributes)).toBeUndefined();
    loop.remember('s', 't', { i: 1 }, invalid, invalid, 7);
    loop.toolsChanged();
    expect(loop.repeat('s', 't', { i: 1 }, attributes)).toBeUndefined();
  });
});
