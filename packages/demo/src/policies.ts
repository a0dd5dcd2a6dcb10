import { classifyError, defaults, type FunctionRule } from '@mcp-resilience/middleware';
import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';

/** The resilient group: the library's defaults, with its time constants compressed like the story. */
export function resilientOptions(speed: number): McpResilienceOptions {
  return {
    timeoutMs: 30_000 / speed,
    backoffBaseMs: 100 / speed,
    breakerBreakMs: defaults.breakerBreakMs / speed,
    breakerMaxBreakMs: defaults.breakerMaxBreakMs / speed,
    breakerWaitLimitMs: defaults.breakerWaitLimitMs / speed,
    breakerWindowMs: 30_000 / speed,
    breakerProbeTimeoutMs: 10_000 / speed,
    budgetWindowMs: 10_000 / speed,
    nonRetryableAs: 'result',
  };
}

/** Every failure is "retryable", whatever it says, and `Retry-After` is not read: the blind loop of most agents. */
const retryEverything: FunctionRule = (error, context) => {
  const { type } = classifyError(error, { ...context, rules: [] });
  return { class: 'retryable', type, execution: 'not_sent' };
};

/**
 * The comparison group: `for attempt in 1..5: try call() except: sleep(2 ** attempt)`, expressed in the same
 * pipeline so its telemetry is comparable: 5 retries of everything, exponential backoff from 1 s, no breaker,
 * no budget, no idempotency check.
 */
export function naiveOptions(speed: number): McpResilienceOptions {
  return {
    maxAttempts: 6,
    backoffBaseMs: 1_000 / speed,
    backoffFactor: 2,
    backoffMaxMs: 32_000 / speed,
    jitter: 'none',
    adaptiveBackoff: false,
    budgetRatio: 1_000_000,
    budgetMinRetriesPerSecond: 1_000_000,
    breakerConsecutiveFailures: 1_000_000_000,
    breakerMinimumCalls: 1_000_000_000,
    idempotency: 'assume-idempotent',
    rules: [retryEverything],
  };
}
