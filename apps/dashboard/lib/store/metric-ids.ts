import {
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_COST,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS,
} from '@mcp-resilience/middleware/semconv';

/** Numeric ids of the contract's counters and histograms in the `facts` table. */
export const M = {
  calls: 1,
  retries: 2,
  errors: 3,
  callDuration: 4,
  wastedTime: 5,
  transitions: 6,
  operationDuration: 7,
  wastedCost: 8,
  /** Bucket counts of a variant's call-duration histogram (`lower~le` then `\u0001variant` in `extra`). */
  callDurationBucket: 9,
  /** Experiments: the shadow classifier's disagreements (10-13 are taken by branch i15a). */
  shadowDisagreements: 14,
} as const;

export const METRIC_IDS: ReadonlyMap<string, number> = new Map([
  [METRIC_MCP_RESILIENCE_CALLS, M.calls],
  [METRIC_MCP_RESILIENCE_RETRIES, M.retries],
  [METRIC_MCP_RESILIENCE_ERRORS, M.errors],
  [METRIC_MCP_RESILIENCE_CALL_DURATION, M.callDuration],
  [METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME, M.wastedTime],
  [METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS, M.transitions],
  [METRIC_MCP_CLIENT_OPERATION_DURATION, M.operationDuration],
  [METRIC_MCP_RESILIENCE_RETRY_WASTED_COST, M.wastedCost],
  [METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS, M.shadowDisagreements],
]);

export const ALL_METRIC_IDS: readonly number[] = Object.values(M);
