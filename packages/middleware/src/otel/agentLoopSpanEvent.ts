import { type HrTime, trace } from '@opentelemetry/api';
import type { FallbackEvent, ModelRetryAvoidedEvent } from '../record/ResilienceEvent.js';
import { errorTypeValue } from './attributes.js';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_RESILIENCE_ERROR_TYPE,
  ATTR_MCP_RESILIENCE_FALLBACK_SERVER,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  EVENT_MCP_RESILIENCE_FALLBACK,
  EVENT_MCP_RESILIENCE_MODEL_RETRY_AVOIDED,
} from './semconv.js';

/**
 * Adds the event to the active span (the agent framework's tool span, or the caller's): a repeat answered from
 * the negative cache has no call span of its own, and a fallback's call span is a sibling of the primary's.
 */
export function agentLoopSpanEvent(
  event: ModelRetryAvoidedEvent | FallbackEvent,
  at: (ms: number) => HrTime,
): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  const base: Record<string, string> = {};
  const server = event.attributes[ATTR_MCP_RESILIENCE_SERVER];
  const tool = event.attributes[ATTR_GEN_AI_TOOL_NAME];
  if (server !== undefined) base[ATTR_MCP_RESILIENCE_SERVER] = server;
  if (tool !== undefined) base[ATTR_GEN_AI_TOOL_NAME] = tool;
  const time = at(event.time);
  if (event.type === 'model_retry_avoided') {
    span.addEvent(
      EVENT_MCP_RESILIENCE_MODEL_RETRY_AVOIDED,
      { ...base, [ATTR_MCP_RESILIENCE_ERROR_TYPE]: errorTypeValue(event.classification?.type) },
      time,
    );
    return;
  }
  span.addEvent(
    EVENT_MCP_RESILIENCE_FALLBACK,
    {
      ...base,
      [ATTR_MCP_RESILIENCE_FALLBACK_SERVER]: event.target,
      [ATTR_MCP_RESILIENCE_OUTCOME]: event.outcome,
    },
    time,
  );
}
