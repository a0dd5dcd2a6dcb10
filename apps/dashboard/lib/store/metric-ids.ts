import {
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_RESILIENCE_CALL_DURATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING,
  METRIC_MCP_RESILIENCE_ERRORS,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME,
  METRIC_MCP_RESILIENCE_RETRIES,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_COST,
  METRIC_MCP_RESILIENCE_RETRY_WASTED_TIME,
  METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS,
} from '@mcp-resilience/middleware/semconv';

/**
 * Numeric ids of the contract's counters and histograms in the `facts` table. The label sets (`dims`) have a
 * column per label; `dims.extra` holds what has none (noted below).
 */
export const M = {
  calls: 1,
  retries: 2,
  errors: 3,
  callDuration: 4,
  wastedTime: 5,
  /** dims.extra = `from>to`. */
  transitions: 6,
  operationDuration: 7,
  wastedCost: 8,
  // i15b (dashboard incident view): histogram buckets of callDuration (dims.bucket_lower, dims.bucket_le),
  // the agent-loop and breaker-gate numbers of CONTRACT.md; breakerWaiting is a level (value/count = mean level
  // per bucket, dims.extra = service.instance.id).
  callDurationBucket: 9,
  modelRetriesAvoided: 10,
  modelRetriesSavedTime: 11,
  breakerShed: 12,
  breakerWaiting: 13,
  /** Experiments: the shadow classifier's disagreements (dims.shadow_class, dims.shadow_type). */
  shadowDisagreements: 14,
  /** The cost the avoided model retries would have had (only from agents with `costPerAttempt`). */
  modelRetriesSavedCost: 15,
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
  [METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED, M.modelRetriesAvoided],
  [METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME, M.modelRetriesSavedTime],
  [METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST, M.modelRetriesSavedCost],
  [METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_SHED, M.breakerShed],
  [METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_WAITING, M.breakerWaiting],
  [METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS, M.shadowDisagreements],
]);

export const ALL_METRIC_IDS: readonly number[] = Object.values(M);
