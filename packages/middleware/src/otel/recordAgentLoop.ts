import { type Counter, type Meter, ValueType } from '@opentelemetry/api';
import type { FallbackEvent, ModelRetryAvoidedEvent } from '../record/ResilienceEvent.js';
import { callMetricAttributes, errorTypeValue } from './attributes.js';
import {
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_FALLBACK_SERVER,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  METRIC_MCP_RESILIENCE_FALLBACKS,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME,
  OTHER_VALUE,
  UNIT_CALL,
  UNIT_COST,
  UNIT_SECONDS,
} from './semconv.js';

export interface AgentLoopInstruments {
  readonly avoided: Counter;
  readonly savedTime: Counter;
  /** Only with `costPerAttempt`. */
  readonly savedCost: { readonly counter: Counter; readonly costPerAttempt: number } | undefined;
  readonly fallbacks: Counter;
}

export function createAgentLoopInstruments(meter: Meter, costPerAttempt?: number): AgentLoopInstruments {
  return {
    avoided: meter.createCounter(METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED, {
      description:
        'Repeats of a tool call that failed for good, answered from the negative cache without a request.',
      unit: UNIT_CALL,
      valueType: ValueType.INT,
    }),
    savedTime: meter.createCounter(METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME, {
      description: 'Duration of the original failed call, per repeat answered from the negative cache.',
      unit: UNIT_SECONDS,
      valueType: ValueType.DOUBLE,
    }),
    savedCost:
      costPerAttempt === undefined
        ? undefined
        : {
            counter: meter.createCounter(METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_COST, {
              description:
                'What the repeats answered from the negative cache would have cost: attempts × cost per attempt.',
              unit: UNIT_COST,
              valueType: ValueType.DOUBLE,
            }),
            costPerAttempt,
          },
    fallbacks: meter.createCounter(METRIC_MCP_RESILIENCE_FALLBACKS, {
      description: 'Tool calls sent to a fallback server after their server failed, by outcome.',
      unit: UNIT_CALL,
      valueType: ValueType.INT,
    }),
  };
}

/** `mcp.resilience.model_retries.*` and `mcp.resilience.fallbacks`. */
export function recordAgentLoop(
  m: AgentLoopInstruments,
  event: ModelRetryAvoidedEvent | FallbackEvent,
): void {
  if (event.type === 'model_retry_avoided') {
    const attributes = {
      ...callMetricAttributes(event),
      [ATTR_MCP_RESILIENCE_ERROR_TYPE]: errorTypeValue(event.classification?.type),
    };
    m.avoided.add(1, attributes);
    m.savedTime.add(Math.max(0, event.savedMs) / 1000, attributes);
    m.savedCost?.counter.add(Math.max(1, event.savedAttempts) * m.savedCost.costPerAttempt, attributes);
    return;
  }
  m.fallbacks.add(1, {
    ...callMetricAttributes({
      endpoint: event.attributes[ATTR_MCP_RESILIENCE_SERVER] ?? OTHER_VALUE,
      operation: event.operation,
      attributes: event.attributes,
    }),
    [ATTR_MCP_RESILIENCE_FALLBACK_SERVER]: event.target,
    [ATTR_MCP_RESILIENCE_OUTCOME]: event.outcome === 'success' ? 'success' : 'failure',
  });
}
