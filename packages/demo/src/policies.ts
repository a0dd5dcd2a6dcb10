import {
  type ClassificationRule,
  classifyError,
  defaults,
  type FunctionRule,
} from '@mcp-resilience/middleware';
import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';

/**
 * The canary's candidate rule set: someone proposes to fail fast on rate limits (HTTP 429) instead of waiting for
 * `Retry-After`. The demo runs it on 10% of the resilient agents' calls, and as a shadow classifier on every
 * failure, so the Experiments page can show what it costs during the rate-limit storm.
 */
export const CANDIDATE_RULES: readonly ClassificationRule[] = [
  { name: 'rate-limits-are-final', status: 429, classify: { class: 'non_retryable', type: 'rate_limited' } },
];

/** The resilient group: the library's defaults, with its time constants compressed like the story. */
export function resilientOptions(speed: number): McpResilienceOptions {
  return {
    variants: { control: {}, candidate: { rules: CANDIDATE_RULES } },
    split: { control: 0.9, candidate: 0.1 },
    shadowRules: CANDIDATE_RULES,
    timeoutMs: 30_000 / speed,
    backoffBaseMs: 100 / speed,
    breakerBreakMs: defaults.breaker.breakMs / speed,
    breakerMaxBreakMs: defaults.breaker.maxBreakMs / speed,
    breakerWaitLimitMs: defaults.gate.waitLimitMs / speed,
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
