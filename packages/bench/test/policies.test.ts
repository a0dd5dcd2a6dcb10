import { describe, expect, it } from 'vitest';
import { makeError } from '../src/faults.js';
import { aiSdkDelay, aiSdkRetryable, breakerReport, langGraphRetryOn } from '../src/policies.js';
import type { Sequence } from '../src/scenarios.js';

const error = (kind: Parameters<typeof makeError>[0]) => makeError(kind, { callId: 1, retryAfterS: 4 });

describe('emulated predicates', () => {
  it("LangGraph's default_retry_on: connection errors and 5xx, not 4xx, other errors yes", () => {
    expect(langGraphRetryOn(error('connection_refused'))).toBe(true);
    expect(langGraphRetryOn(error('unavailable_503_html'))).toBe(true);
    expect(langGraphRetryOn(error('invalid_argument_400'))).toBe(false);
    expect(langGraphRetryOn(error('rate_limited_429'))).toBe(false);
    expect(langGraphRetryOn(error('invalid_params_32602'))).toBe(true);
    expect(langGraphRetryOn(new TypeError('x is not a function'))).toBe(false);
  });

  it("the AI SDK's isRetryable: 408/409/429/5xx and network errors", () => {
    expect(aiSdkRetryable(error('rate_limited_429'))).toBe(true);
    expect(aiSdkRetryable(error('bad_gateway_502'))).toBe(true);
    expect(aiSdkRetryable(error('connection_reset'))).toBe(true);
    expect(aiSdkRetryable(error('unauthorized_401'))).toBe(false);
    expect(aiSdkRetryable(error('timeout'))).toBe(false);
  });

  it("the AI SDK's delay honours a reasonable Retry-After", () => {
    expect(aiSdkDelay(error('rate_limited_429'), 2_000)).toBe(4_000);
    expect(aiSdkDelay(error('bad_gateway_502'), 2_000)).toBe(2_000);
    const long = Object.assign(new Error('x'), { status: 429, headers: { 'retry-after': '120' } });
    expect(aiSdkDelay(long, 2_000)).toBe(2_000);
  });
});

describe('breakerReport', () => {
  it('measures the time the breaker was not closed, and the part of it the endpoint was up', () => {
    const sequence = {
      durationMs: 100_000,
      segments: [{ from: 10_000, to: 15_000, state: { kind: 'down', fault: 'connection_refused' } }],
    } as unknown as Sequence;
    const report = breakerReport(
      [
        { t: 11_000, to: 'open' },
        { t: 21_000, to: 'half_open' },
        { t: 21_500, to: 'closed' },
        { t: 90_000, to: 'open' },
      ],
      sequence,
    );
    expect(report).toEqual({
      breakerOpens: 2,
      breakerNotClosedMs: 10_500 + 10_000,
      breakerNotClosedWhileUpMs: 10_500 - 4_000 + 10_000,
    });
  });
});
