import { describe, expect, it } from 'vitest';
import type { Classification } from '../classify/Classification.js';
import { type DecideInput, decide } from './decide.js';

const serverError: Classification = {
  class: 'retryable',
  type: 'server_error',
  execution: 'unknown',
  source: 'test',
};
const base: DecideInput = {
  classification: serverError,
  attempt: 1,
  maxAttempts: 3,
  idempotent: true,
  aborted: false,
  now: 1_000,
  deadline: undefined,
  backoffMs: 100,
  expectedRecoveryMs: 0,
  expectedLatencyMs: 0,
  endpointRetryAfterMs: 0,
  retryAfterMarginMs: 100,
  retryAfterMaxMs: 60_000,
  canRecover: false,
  breakerOpenMs: 0,
  breakerWait: true,
  recoveryLikely: true,
  budgetAvailable: true,
};
const rateLimited = (retryAfterMs?: number): Classification => ({
  class: 'conditional',
  type: 'rate_limited',
  execution: 'not_sent',
  source: 'test',
  ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
});

describe('decide', () => {
  it.each<[string, Partial<DecideInput>, ReturnType<typeof decide>]>([
    ['retries a retryable failure after the backoff', {}, { kind: 'retry', delayMs: 100 }],
    ['gives up on a caller abort', { aborted: true }, { kind: 'give_up', reason: 'aborted' }],
    [
      'gives up on a non-retryable failure',
      { classification: { ...serverError, class: 'non_retryable', type: 'invalid_params' } },
      { kind: 'give_up', reason: 'non_retryable' },
    ],
    ['gives up after the last attempt', { attempt: 3 }, { kind: 'give_up', reason: 'max_attempts' }],
    [
      'does not multiply the retries of an inner layer',
      { classification: { ...serverError, source: 'resilience_error' } },
      { kind: 'give_up', reason: 'already_retried' },
    ],
    [
      'does not repeat an ambiguous failure of a non-idempotent call',
      { idempotent: false },
      { kind: 'give_up', reason: 'not_idempotent' },
    ],
    [
      'repeats a non-idempotent call that was never sent',
      { idempotent: false, classification: { ...serverError, type: 'network', execution: 'not_sent' } },
      { kind: 'retry', delayMs: 100 },
    ],
    [
      'waits for Retry-After plus the margin',
      { classification: rateLimited(2_000) },
      { kind: 'wait', delayMs: 2_100 },
    ],
    [
      'a rate limit without Retry-After backs off',
      { classification: rateLimited() },
      { kind: 'wait', delayMs: 100 },
    ],
    [
      'honours the endpoint-wide Retry-After learned from another call',
      { endpointRetryAfterMs: 5_000 },
      { kind: 'retry', delayMs: 5_100 },
    ],
    [
      'does not wait for a Retry-After above the ceiling',
      { classification: rateLimited(61_000) },
      { kind: 'give_up', reason: 'retry_after_too_long' },
    ],
    [
      'does not start a wait that ends past the deadline',
      { classification: rateLimited(2_000), deadline: 2_500 },
      { kind: 'give_up', reason: 'deadline' },
    ],
    [
      'does not start a retry that cannot finish before the deadline',
      { deadline: 1_150, expectedLatencyMs: 100 },
      { kind: 'give_up', reason: 'deadline' },
    ],
    [
      'waits at least until the endpoint usually recovers',
      { expectedRecoveryMs: 1_800 },
      { kind: 'retry', delayMs: 1_800 },
    ],
    [
      'gives up when the endpoint usually recovers past the deadline and recovery before it is unlikely',
      { expectedRecoveryMs: 20_000, deadline: 11_000, recoveryLikely: false },
      { kind: 'give_up', reason: 'deadline' },
    ],
    [
      'retries at the last moment that fits when recovery before the deadline is still likely',
      { expectedRecoveryMs: 20_000, deadline: 11_000, expectedLatencyMs: 200 },
      { kind: 'retry', delayMs: 9_800 },
    ],
    [
      "without a deadline, retries at a naive loop's retry up to 0.5 s before the usual recovery (call started at 0)",
      { now: 1_200, expectedRecoveryMs: 2_300, naiveLoop: { start: 0, spanMs: 60_000 } },
      { kind: 'retry', delayMs: 1_800 },
    ],
    [
      "without a deadline, keeps the usual recovery when the naive loop's last retry before it is over 0.5 s earlier",
      { now: 1_200, expectedRecoveryMs: 2_301, naiveLoop: { start: 0, spanMs: 60_000 } },
      { kind: 'retry', delayMs: 2_301 },
    ],
    [
      'without a deadline, keeps the usual recovery when no retry of the naive loop comes before it',
      { now: 1_200, expectedRecoveryMs: 1_500, naiveLoop: { start: 0, spanMs: 60_000 } },
      { kind: 'retry', delayMs: 1_500 },
    ],
    [
      "without a deadline, keeps the usual recovery past the naive loop's span",
      { now: 32_000, expectedRecoveryMs: 5_000, naiveLoop: { start: 0, spanMs: 60_000 } },
      { kind: 'retry', delayMs: 5_000 },
    ],
    [
      'without a usual recovery, the backoff alone (no naive retry forced)',
      { now: 1_200, naiveLoop: { start: 0, spanMs: 60_000 } },
      { kind: 'retry', delayMs: 100 },
    ],
    [
      'with a deadline, the naive loop does not move the floor',
      { now: 1_200, expectedRecoveryMs: 2_300, deadline: 20_000, naiveLoop: { start: 0, spanMs: 60_000 } },
      { kind: 'retry', delayMs: 2_300 },
    ],
    [
      'reconnects when a recovery is given for a conditional failure',
      {
        classification: { ...serverError, class: 'conditional', type: 'connection_closed' },
        canRecover: true,
      },
      { kind: 'reconnect', delayMs: 100 },
    ],
    [
      'reconnects at once on an expired session',
      {
        classification: {
          ...serverError,
          class: 'conditional',
          type: 'session_expired',
          execution: 'not_sent',
        },
        canRecover: true,
      },
      { kind: 'reconnect', delayMs: 0 },
    ],
    [
      'does not retry a conditional failure nobody can resolve',
      { classification: { ...serverError, class: 'conditional', type: 'connection_closed' } },
      { kind: 'give_up', reason: 'condition_unmet' },
    ],
    [
      'fail-fast: stops when the breaker stays open past the delay',
      { breakerOpenMs: 9_000, breakerWait: false },
      { kind: 'circuit_open', retryAfterMs: 9_000 },
    ],
    [
      'retries (to wait at the gate) when the breaker probes before the deadline',
      { breakerOpenMs: 9_000, deadline: 1_000 + 9_000 + 200, expectedLatencyMs: 200 },
      { kind: 'retry', delayMs: 100 },
    ],
    [
      'stops when the next probe comes too late for the deadline',
      { breakerOpenMs: 9_000, deadline: 1_000 + 9_000 + 199, expectedLatencyMs: 200 },
      { kind: 'circuit_open', retryAfterMs: 9_000 },
    ],
    [
      'stops when recovery before the limit is unlikely, even if the probe comes in time',
      { breakerOpenMs: 9_000, recoveryLikely: false },
      { kind: 'circuit_open', retryAfterMs: 9_000 },
    ],
    [
      'retries when the breaker half-opens before the delay ends',
      { breakerOpenMs: 50 },
      { kind: 'retry', delayMs: 100 },
    ],
    [
      'retries when the breaker half-opens before the delay ends, whatever the odds',
      { breakerOpenMs: 50, recoveryLikely: false },
      { kind: 'retry', delayMs: 100 },
    ],
    ['stops when the retry budget is spent', { budgetAvailable: false }, { kind: 'budget_exhausted' }],
  ])('%s', (_name, input, expected) => {
    expect(decide({ ...base, ...input })).toEqual(expected);
  });
});
