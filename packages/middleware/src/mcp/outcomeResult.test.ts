import { describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import { ResilienceError } from '../errors/ResilienceError.js';
import { outcomeResult, outcomeText, terminalOutcome } from './outcomeResult.js';

const error = (reason: string, c: Partial<Classification> = {}, attempts = 1) =>
  new ResilienceError(
    { class: 'retryable', type: 'unavailable', execution: 'not_sent', source: 'test', ...c },
    attempts,
    reason as ResilienceError['reason'],
    undefined,
  );

describe('terminal outcomes as results', () => {
  it('maps give-up reasons to outcomes', () => {
    expect(terminalOutcome(error('circuit_open'))).toBe('circuit_open');
    expect(terminalOutcome(error('shed'))).toBe('shed');
    expect(terminalOutcome(error('deadline'))).toBe('deadline');
    expect(terminalOutcome(error('budget_exhausted'))).toBe('budget_exhausted');
    expect(terminalOutcome(error('max_attempts'))).toBe('retries_exhausted');
    expect(terminalOutcome(error('already_retried'))).toBe('retries_exhausted');
    expect(terminalOutcome(error('retry_after_too_long'))).toBe('rate_limited');
    expect(terminalOutcome(error('not_idempotent'))).toBe('not_retried_unsafe');
    expect(terminalOutcome(error('condition_unmet'))).toBe('not_recovered');
    expect(terminalOutcome(error('non_retryable'))).toBeUndefined();
    expect(terminalOutcome(error('aborted'))).toBeUndefined();
  });

  it('says in one sentence what failed, whether calling again can help, and when', () => {
    const open = error('circuit_open', { type: 'circuit_open', retryAfterMs: 29_001 }, 0);
    expect(outcomeText('circuit_open', open, 'search')).toBe(
      "Tool 'search' is unavailable: its server is failing and calls to it are paused, so calling it again can only succeed after about 30 s; continue without it or try later.",
    );
    expect(outcomeText('shed', error('shed', { retryAfterMs: 500 }), 'search')).toBe(
      "Tool 'search' was not called because its server is overloaded and too many calls are already waiting; call it again in about 1 s, or continue without it.",
    );
    expect(outcomeText('deadline', error('deadline', { type: 'timeout' }, 2), undefined)).toBe(
      'The tool did not finish within its time limit (2 attempts, timeout); calling it again with the same arguments may fail the same way, so ask for less or try later.',
    );
    expect(outcomeText('budget_exhausted', error('budget_exhausted', { type: 'server_error' }), 'x')).toBe(
      "Tool 'x' failed (server_error) and was not retried because its server is failing many calls right now; call it again in a few seconds at the earliest, or continue without it.",
    );
    expect(outcomeText('retries_exhausted', error('max_attempts', {}, 3), 'x')).toBe(
      "Tool 'x' failed 3 times in a row with a temporary error (unavailable); calling it again in a few seconds may succeed, or continue without it.",
    );
    expect(outcomeText('retries_exhausted', error('already_retried'), 'x')).toBe(
      "Tool 'x' failed with a temporary error (unavailable) even after being retried; calling it again in a few seconds may succeed, or continue without it.",
    );
    const limited = error('retry_after_too_long', { type: 'rate_limited', retryAfterMs: 120_000 });
    expect(outcomeText('rate_limited', limited, 'x')).toBe(
      "Tool 'x' failed (rate_limited) and its server asked to wait about 120 s before calling again, longer than this call may wait; call it again in about 120 s at the earliest, or continue without it.",
    );
    const unsafe = error('not_idempotent', { type: 'network', execution: 'unknown' });
    expect(outcomeText('not_retried_unsafe', unsafe, 'x')).toBe(
      "Tool 'x' failed (network) after its request may already have reached the server, and was not retried because running it twice may not be safe; check whether it took effect before calling it again with the same arguments.",
    );
    const lost = error('condition_unmet', { class: 'conditional', type: 'session_expired' });
    expect(outcomeText('not_recovered', lost, 'x')).toBe(
      "Tool 'x' failed because the connection to its server was lost (session_expired) and this could not be fixed, so it was not retried; calling it again right away will likely fail the same way, so continue without it or try later.",
    );
    expect(outcomeResult('retries_exhausted', error('max_attempts', {}, 3), 'x')).toEqual({
      content: [{ type: 'text', text: expect.stringMatching(/^Tool 'x' failed 3 times/) }],
      isError: true,
    });
  });
});
